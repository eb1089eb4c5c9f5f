// Package private brings a library that Debian does not ship into
// novelapi: a user's in-house package, a release fresher than Debian's, a
// fork (docs/private.md). [Open] reads what the user hands over (a source
// tree with pyproject.toml, setup.cfg or setup.py; a wheel; an sdist; an
// installed tree with a *.dist-info) into a [Source]: its name, version,
// declared dependencies, top-level modules and the files a wheel installer
// would place in site-packages. [Layer] installs sources over a Debian base
// environment into a new environment, without a network and without pip:
// the files are copied, never built, so a compiled part must come as a wheel
// for the environment's Python. [MapDependencies] maps declared
// dependencies to the suite's Debian packages. [Registry] records what was
// added, so that a later add finds a private dependency and rm finds what to
// remove.
package private
