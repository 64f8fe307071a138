import Testing
@testable import GestureEngine
