// The GestureDaemon module; see docs/ and ../../README.md.
