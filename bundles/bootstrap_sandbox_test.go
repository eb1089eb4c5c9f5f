package bundles

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// Django in Debian trixie (trixie-django): its modules need settings
// before they import, which the bootstrap gives (docs/environments.md §8).

// Without the bootstrap, django.conf.settings raises ImproperlyConfigured
// when the walk inspects it: a walk failure naming the attribute, and the
// rest of the surface is written.
func TestIntrospect_DjangoWithoutBootstrap(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-django")
	res, err := runner.Run(t.Context(), sandbox.Spec{
		Environment: env,
		Files:       []sandbox.File{{Path: "introspect.py", Data: script("introspect.py")}, {Path: "pyobj.py", Data: script("pyobj.py")}},
		Argv:        []string{"python3", "-I", "-B", sandbox.JobDir + "/introspect.py", "django", "Django", sandbox.OutDir + "/surface.json"},
		Env:         threadEnv,
		Limits:      IntrospectLimits,
	})
	if err != nil {
		t.Fatal(err)
	}
	var s Surface
	if err := json.Unmarshal(res.Outputs["surface.json"], &s); err != nil {
		t.Fatalf("no surface (exit %d): %v\n%s", res.ExitCode, err, tail(res.Stderr, 800))
	}
	i := slices.IndexFunc(s.WalkFailures, func(f WalkFailure) bool { return f.Module == "django.conf" && f.Attribute == "settings" })
	if i < 0 || !strings.Contains(s.WalkFailures[i].Error, "ImproperlyConfigured") {
		t.Errorf("walk failures %v; want django.conf.settings failing with ImproperlyConfigured", s.WalkFailures)
	}
	if len(s.Entries) < 500 {
		t.Errorf("%d entries; want the walk to go on past the failure", len(s.Entries))
	}
}

// With the bootstrap, the models of contrib apps import and are in the
// surface; its examples start with the bootstrap, and an API that needs
// settings to import resolves.
func TestBootstrap_Django(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-django")
	s, err := Introspect(t.Context(), runner, env, "django", "Django")
	if err != nil {
		t.Fatal(err)
	}
	if s.BootstrapError != "" {
		t.Fatalf("bootstrap failed: %s", s.BootstrapError)
	}
	byName := map[string]bool{}
	for _, e := range s.Entries {
		for _, p := range e.Paths {
			byName[p] = true
		}
	}
	for _, n := range []string{"django.contrib.auth.models.User", "django.contrib.sessions.models.Session", "django.db.models.Q"} {
		if !byName[n] {
			t.Errorf("%s missing from the surface (%d entries)", n, len(s.Entries))
		}
	}
	for _, f := range s.WalkFailures {
		if f.Attribute != "" || strings.HasPrefix(f.Module, "django.contrib.auth") {
			t.Errorf("walk failure %s: %s; want only modules whose optional dependencies are missing", f.Path(), f.Error)
		}
	}

	cands := []Candidate{
		{APIName: "django.contrib.auth.models.User", Kind: KindClass, Library: "django", Domain: "swe", NewVersion: s.Version,
			Extra: Extra{ClassRole: RolePlainClass}},
		{APIName: "django.utils.text.get_text_list", Kind: KindFunction, Library: "django", Domain: "swe", NewVersion: s.Version},
	}
	bs, sum, err := Extract(t.Context(), runner, ExtractConfig{Env: env, Candidates: cands, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 {
		t.Fatalf("%d bundles, summary %+v; want both APIs to resolve after the bootstrap", len(bs), sum)
	}
	boot := Bootstrap("django")
	if !strings.Contains(boot, "settings.configure(") || !strings.Contains(boot, "django.setup()") {
		t.Fatalf("Bootstrap(django) = %q", boot)
	}
	for _, b := range bs {
		if b.Implementation == "" {
			t.Errorf("%s: no C", b.APIName)
		}
		for _, e := range b.Examples {
			if !strings.HasPrefix(e.Code, boot) {
				t.Errorf("%s: example does not start with the bootstrap:\n%s", b.APIName, e.Code)
			}
		}
	}
}

// A program that defines models at top level, as documentation examples
// do, gets them in the bootstrap's app for __main__ and their tables in the
// in-memory database before its first query: a foreign key, a many-to-many
// relation and a model that refers to one defined after it, then a query
// of a contrib app's model (docs/environments.md §8).
func TestBootstrap_DjangoModelsOfAProgram(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-django")
	prog := Bootstrap("django") + `
from django.db import models

class Reporter(models.Model):
    name = models.CharField(max_length=30)

class Tag(models.Model):
    name = models.CharField(max_length=30)

class Article(models.Model):
    reporter = models.ForeignKey(Reporter, on_delete=models.CASCADE)
    tags = models.ManyToManyField(Tag)
    headline = models.CharField(max_length=100)

r = Reporter.objects.create(name="Ann")
a = Article.objects.create(reporter=r, headline="Hello")
a.tags.add(Tag.objects.create(name="news"))
print(list(Article.objects.filter(tags__name="news").values_list("headline", "reporter__name")))

class Chapter(models.Model):
    book = models.ForeignKey("Book", on_delete=models.CASCADE)

class Book(models.Model):
    title = models.CharField(max_length=30)

Chapter.objects.create(book=Book.objects.create(title="T"))
print(Chapter.objects.count(), Article._meta.app_label)

from django.contrib.auth.models import User
print(User.objects.create_user("bob").username)
`
	res, err := runner.Run(t.Context(), sandbox.Spec{
		Environment: env,
		Files:       []sandbox.File{{Path: "main.py", Data: []byte(prog)}},
		Argv:        []string{"python3", "-I", "-B", sandbox.JobDir + "/main.py"},
		Env:         threadEnv,
		Limits:      IntrospectLimits,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "[('Hello', 'Ann')]\n1 main\nbob\n"
	if res.ExitCode != 0 || string(res.Stdout) != want {
		t.Errorf("exit %d, stdout %q; want %q\n%s", res.ExitCode, res.Stdout, want, tail(res.Stderr, 1500))
	}
}
