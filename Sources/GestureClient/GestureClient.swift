// The GestureClient module; see docs/ and ../../README.md.
