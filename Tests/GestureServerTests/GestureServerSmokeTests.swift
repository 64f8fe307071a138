import Testing
@testable import GestureServer
