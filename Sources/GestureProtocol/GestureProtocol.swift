// The GestureProtocol module; see docs/ and ../../README.md.
