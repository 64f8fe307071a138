// The TouchInput module; see docs/ and ../../README.md.
