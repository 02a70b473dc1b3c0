// Package docsnippets holds a test, and nothing else: every complete Go
// program in the documentation (a ```go fenced block of README.md or
// docs/*.md that starts with "package main") must compile against this
// module as written, so that a snippet a reader copies works, and a
// renamed package or field breaks the test instead of the reader's build.
package docsnippets
