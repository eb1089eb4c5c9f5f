# Bootstrap of django (docs/environments.md §8): django's models, admin and
# auth modules raise ImproperlyConfigured or AppRegistryNotReady at import
# until settings are configured and the app registry is populated. Every
# sandbox run that imports django runs these lines first; running them again
# does nothing. Only contrib apps that need no package beyond django itself.
import django
from django.conf import settings

if not settings.configured:
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
        ],
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}],
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    )
    django.setup()
