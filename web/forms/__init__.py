"""The pages' forms: Django forms that turn what people type or tap into what the services
take (a result sheet, a penalty); they hold no rule the engine or the services decide."""
