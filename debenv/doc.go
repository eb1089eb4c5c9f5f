// Package debenv builds, lists and imports the Debian root filesystems
// ("environments") that every Python run of novelapi happens in: debootstrap
// of a suite with a set of libraries' Debian packages, a manifest read from
// inside the result, an atomic swap into the store, and the Docker image of
// an environment for the docker backend (docs/sandbox.md §4.5).
//
// Running programs inside an environment is package sandbox's job; debenv
// only makes the environments, and uses sandbox's bwrap backend to read the
// versions inside one it built.
package debenv
