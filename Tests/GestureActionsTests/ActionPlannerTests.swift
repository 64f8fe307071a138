import GestureActions
import GestureEngine
import GestureProtocol
import Testing

@Suite("action planner")
struct ActionPlannerTests {}
