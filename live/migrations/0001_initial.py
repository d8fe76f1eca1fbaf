"""LiveGame moves here from ``games`` (state only): its table keeps its name, ``games_livegame``,
and every row stays where it is. ``games.0006`` then drops the model from ``games``' state."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0004_livegame_hosted'),
        ('tournaments', '0002_event_move_seconds'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='LiveGame',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveSmallIntegerField(verbose_name='game')),
                        ('status', models.CharField(choices=[('running', 'running'), ('finished', 'finished')], default='running', max_length=20, verbose_name='status')),
                        ('state', models.JSONField(verbose_name='engine state')),
                        ('version', models.PositiveIntegerField(default=0, verbose_name='version')),
                        ('move_seconds', models.PositiveIntegerField(default=60, verbose_name='move time limit (s)')),
                        ('turn_deadline', models.DateTimeField(blank=True, null=True, verbose_name='turn deadline')),
                        ('hosted', models.PositiveSmallIntegerField(default=0, verbose_name='seats in 托管')),
                        ('started_at', models.DateTimeField(auto_now_add=True, verbose_name='started')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated')),
                        ('result', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='live_game', to='games.gameresult', verbose_name='result')),
                        ('table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='live_games', to='tournaments.table', verbose_name='table')),
                    ],
                    options={
                        'verbose_name': 'live game',
                        'verbose_name_plural': 'live games',
                        'db_table': 'games_livegame',
                        'ordering': ['table', 'number'],
                        'constraints': [models.UniqueConstraint(fields=('table', 'number'), name='live_game_once_per_game')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
