import Testing
@testable import GestureDaemon
