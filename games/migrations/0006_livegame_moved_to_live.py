"""LiveGame has moved to the ``live`` app (``live.0001``): drop it from ``games``' state only (its
table, ``games_livegame``, and rows stay), and move its content type along, so that permissions
and admin log entries naming it still do."""

from django.db import migrations


def _move_content_type(apps, schema_editor, source, target):
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label=target, model="livegame").exists():
        ContentType.objects.filter(app_label=source, model="livegame").update(app_label=target)


def forwards(apps, schema_editor):
    _move_content_type(apps, schema_editor, "games", "live")


def backwards(apps, schema_editor):
    _move_content_type(apps, schema_editor, "live", "games")


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('games', '0005_result_proposals'),
        ('live', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='LiveGame')],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
