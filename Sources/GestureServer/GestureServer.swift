// The GestureServer module; see docs/ and ../../README.md.
