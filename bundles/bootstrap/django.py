# Bootstrap of django (docs/environments.md §8): django's models, admin and
# auth modules raise ImproperlyConfigured or AppRegistryNotReady at import
# until settings are configured and the app registry is populated. Every
# sandbox run that imports django runs these lines first; running them again
# does nothing. Only contrib apps that need no package beyond django itself,
# and an app for the models a program defines in __main__ (documentation
# examples define their models at top level): each model's table is made in
# the in-memory database before the first query after its definition.
import django
from django.conf import settings

if not settings.configured:
    from django.apps import AppConfig

    class MainApp(AppConfig):
        label = "main"
        path = "/tmp"

    settings.configure(
        DEBUG=True,
        SECRET_KEY="novelapi-bootstrap",
        USE_TZ=True,
        STATIC_URL="static/",
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
        INSTALLED_APPS=[
            "django.contrib.admin",
            "django.contrib.admindocs",
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.flatpages",
            "django.contrib.humanize",
            "django.contrib.messages",
            "django.contrib.redirects",
            "django.contrib.sessions",
            "django.contrib.sitemaps",
            "django.contrib.sites",
            "django.contrib.staticfiles",
            "django.contrib.syndication",
            MainApp("__main__", None),
        ],
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}],
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    )
    django.setup()

    from django.apps import apps
    from django.db.backends.signals import connection_created

    def _make_tables(connection):
        made, busy = set(), []

        def before(execute, sql, params, many, context):
            todo = [m for m in apps.get_models() if m not in made]
            if todo and not busy and not connection.in_atomic_block:
                busy.append(True)
                try:
                    have = set(connection.introspection.table_names())
                    with connection.schema_editor() as editor:
                        for m in todo:
                            o = m._meta
                            try:
                                if o.managed and not (o.proxy or o.swapped) and o.db_table not in have:
                                    editor.create_model(m)
                                made.add(m)
                            except Exception:
                                pass  # a relation to a model not defined yet: a later query
                finally:
                    busy.clear()
            return execute(sql, params, many, context)

        connection.execute_wrappers.append(before)

    connection_created.connect(lambda sender, connection, **kw: _make_tables(connection), weak=False)
