import GestureEngine
import GestureProtocol

/// The actions file of `gestured actions` (docs/ACTIONS.md explains every key): which gesture
/// does what. The daemon never reads it; the actions client does, as the kiosk's user.
///
/// ```yaml
/// actions:
///   - on: swipe
///     fingers: 3
///     direction: down
///     keys: [KEY_LEFTCTRL, KEY_R]        # reload the page
///   - on: long-press
///     click: right                      # at the finger
///   - on: pan
///     fingers: 2
///     scroll: {}                        # two-finger scrolling
///   - on: edge-swipe
///     edge: top
///     run: ["/usr/bin/systemctl", "--user", "start", "admin-menu"]
/// ```
public struct ActionsConfiguration: Hashable, Sendable {
    /// The daemon's socket; nil: the protocol's default path (`--socket` overrides both).
    public var socket: String?
    /// A user (name or uid) taken for the daemon besides root, `gestured` and the client's own
    /// user: the one a daemon run by hand under another account runs as (docs/ACTIONS.md).
    public var daemonUser: String?
    public var commands: CommandSettings
    /// In file order; every rule that matches a gesture report acts, in this order.
    public var actions: [ActionRule]

    public init(
        socket: String? = nil, daemonUser: String? = nil, commands: CommandSettings = CommandSettings(),
        actions: [ActionRule] = []
    ) {
        self.socket = socket
        self.daemonUser = daemonUser
        self.commands = commands
        self.actions = actions
    }

    /// The recognizer names the rules act on (what the client subscribes to); rules on a panel's
    /// day (`on: wake`, `idle`, `active`) need no subscription: those messages go to everyone;
    /// rules `on: mqtt` act only when `gestured mqtt` names them.
    public var recognizerNames: Set<String> {
        Set(actions.filter { $0.panelEvent == nil && !$0.isNamedOnly }.map(\.recognizer))
    }

    /// The rule called `name` (its `name` key), the one `gestured mqtt` runs for a message it maps
    /// to that name.
    public func rule(named name: String) -> ActionRule? {
        actions.first { $0.name == name }
    }

    /// Every key name a rule may send, for the virtual keyboard to declare up front.
    public var keyNames: Set<String> {
        var names = Set<String>()
        for rule in actions {
            if case .keys(let chord, let repeating) = rule.action {
                names.formUnion(chord.names)
                names.formUnion(repeating?.reverse?.names ?? [])
            }
        }
        return names
    }

    /// Which pointers the rules use: at the gesture's position (an absolute pointer), at the
    /// cursor (a relative one), or neither.
    public var pointerPlaces: Set<PointerPlace> {
        Set(
            actions.compactMap { rule in
                switch rule.action {
                case .click(let click): click.at
                case .scroll(let scroll): scroll.at
                case .keys, .run: nil
                }
            })
    }
}

/// How commands (`run`, `shell`) are run.
public struct CommandSettings: Hashable, Sendable {
    /// A command still running after this long is stopped (SIGTERM to its process group, SIGKILL
    /// two seconds later).
    public var timeoutMS: Int
    /// Commands running at once; a gesture whose command would exceed it is not run (and the
    /// journal says so), so a burst of gestures cannot pile up processes.
    public var maxRunning: Int

    public init(timeoutMS: Int = 10_000, maxRunning: Int = 4) {
        self.timeoutMS = timeoutMS
        self.maxRunning = maxRunning
    }
}

/// One line of the `actions` list: a gesture report that matches, and what it does.
public struct ActionRule: Hashable, Sendable {
    /// The recognizer's name (`on`), as the daemon's configuration or `hello` lists it.
    public var recognizer: String
    /// The report acted on; nil: the gesture's first report (`recognized` for a discrete
    /// gesture, `began` for a continuous one). Scrolling and repeated keys follow the gesture from
    /// `began` to its end and take no state.
    public var state: GestureState?
    public var direction: Direction?
    public var edge: Edge?
    public var fingers: Int?
    public var region: String?
    /// What `gestured mqtt` calls the rule (`name`): a message it maps to this name runs the rule's
    /// action (docs/FLEET.md, "Home Assistant and MQTT"). Unique in the file.
    public var name: String?
    public var action: Action

    public init(
        recognizer: String, state: GestureState? = nil, direction: Direction? = nil, edge: Edge? = nil,
        fingers: Int? = nil, region: String? = nil, name: String? = nil, action: Action
    ) {
        self.recognizer = recognizer
        self.state = state
        self.direction = direction
        self.edge = edge
        self.fingers = fingers
        self.region = region
        self.name = name
        self.action = action
    }

    /// What `on` says of a rule that acts only when `gestured mqtt` names it.
    public static let namedOnly = "mqtt"

    /// The panel's day the rule acts on (`on: wake`, `idle` or `active`) instead of a recognizer.
    public var panelEvent: PanelEventName? { PanelEventName(rawValue: recognizer) }

    /// Whether the rule acts only when `gestured mqtt` names it (`on: mqtt`), on no message of the
    /// daemon's.
    public var isNamedOnly: Bool { recognizer == Self.namedOnly }

    /// Whether the rule can act without a gesture — keys or a command, not a click or a scroll,
    /// which happen at a gesture's position: what a rule on a panel's day or one `gestured mqtt`
    /// runs must be.
    public var actsWithoutGesture: Bool {
        switch action {
        case .keys(_, nil), .run: true
        case .keys(_, .some), .click, .scroll: false
        }
    }

    /// Whether the report's fields pass the rule's filters (its name and state aside).
    func passesFilters(_ g: GestureMessage) -> Bool {
        (direction.map { $0 == g.direction } ?? true) && (edge.map { $0 == g.edge } ?? true)
            && (fingers.map { $0 == g.fingers } ?? true) && (region.map { $0 == g.region } ?? true)
    }

    /// Whether the action follows the gesture from `began` to its end (scrolling, repeated keys)
    /// instead of acting on one report.
    public var followsGesture: Bool {
        switch action {
        case .scroll, .keys(_, .some): true
        case .keys(_, nil), .click, .run: false
        }
    }
}

/// What `on` may name besides a recognizer: the daemon's `wake`, `idle` and `active` messages
/// (docs/PROTOCOL.md), a panel's day. A recognizer of one of these names cannot be acted on.
public enum PanelEventName: String, Hashable, Sendable, CaseIterable {
    case wake, idle, active
}

/// What a rule does.
public enum Action: Hashable, Sendable {
    /// A shortcut on the virtual keyboard: the keys pressed in order and released in reverse
    /// order; with a repeat, once per step of the gesture's motion.
    case keys(KeyChord, repeating: KeyRepeat?)
    /// A button pressed and released.
    case click(Click)
    /// The gesture's translation as wheel motion, until it ends.
    case scroll(Scroll)
    /// A command, started without waiting for it.
    case run(Command)
}

/// Keys by their Linux names (`KEY_LEFTCTRL`, `KEY_R`; linux/input-event-codes.h).
public struct KeyChord: Hashable, Sendable {
    public var names: [String]
    public init(_ names: [String]) { self.names = names }
}

/// Keys sent again for every step of a continuous gesture's motion (Touchégg's `repeat`).
public struct KeyRepeat: Hashable, Sendable {
    public var step: RepeatStep
    /// Sent for every step back (zoom out, volume down); nil: steps back send nothing.
    public var reverse: KeyChord?

    public init(step: RepeatStep, reverse: KeyChord? = nil) {
        self.step = step
        self.reverse = reverse
    }
}

/// The unit of a repeat's steps.
public enum RepeatStep: Hashable, Sendable {
    /// Millimetres of translation along a direction (`every-mm`, `along`).
    case millimetres(Double, along: Direction)
    /// Degrees of rotation, clockwise forward (`every-degrees`).
    case degrees(Double)
    /// A scale factor above 1: each time the scale grows by it, a step forward; each time it
    /// shrinks by it, a step back (`every-scale`).
    case scale(Double)
}

/// A pointer button.
public enum PointerButton: String, Hashable, Sendable, CaseIterable, Spelled {
    case left, right, middle
    public static var spelledAs: String { "button" }
}

/// Where the pointer acts: at the gesture's position (an absolute pointer device that covers the
/// screen, moved there first) or wherever the cursor is (a relative pointer device).
public enum PointerPlace: String, Hashable, Sendable, CaseIterable, Spelled {
    case gesture, cursor
    public static var spelledAs: String { "pointer place" }
}

public struct Click: Hashable, Sendable {
    public var button: PointerButton
    public var at: PointerPlace

    public init(_ button: PointerButton, at: PointerPlace = .gesture) {
        self.button = button
        self.at = at
    }
}

/// Which wheel axes a scroll drives.
public enum ScrollAxis: String, Hashable, Sendable, CaseIterable, Spelled {
    case both, vertical, horizontal
    public static var spelledAs: String { "scroll axis" }
}

public struct Scroll: Hashable, Sendable {
    /// Content follows the fingers (a touchscreen's way); false: the fingers move the view, as a
    /// mouse wheel turned the same way would.
    public var natural: Bool
    /// Millimetres of finger travel per wheel detent (120 high-resolution units).
    public var mmPerDetent: Double
    public var axis: ScrollAxis
    /// Where the scrolling happens: under the gesture's start (the absolute pointer is moved
    /// there when it begins) or under the cursor.
    public var at: PointerPlace

    public init(natural: Bool = true, mmPerDetent: Double = 10, axis: ScrollAxis = .both, at: PointerPlace = .gesture) {
        self.natural = natural
        self.mmPerDetent = mmPerDetent
        self.axis = axis
        self.at = at
    }
}

/// A program and its arguments, started directly (no shell), or a shell command line, started
/// as `/bin/sh -c LINE` (the `shell` key, which says so).
public struct Command: Hashable, Sendable {
    public var arguments: [String]
    public var isShell: Bool

    public init(_ arguments: [String]) {
        self.arguments = arguments
        self.isShell = false
    }

    public init(shell line: String) {
        self.arguments = ["/bin/sh", "-c", line]
        self.isShell = true
    }

    /// How the journal names it: the program, or `sh -c` and the line.
    public var label: String {
        isShell ? "sh -c '\(arguments[2])'" : arguments.joined(separator: " ")
    }

    /// The most bytes of one argument the kernel passes to a program: MAX_ARG_STRLEN (32 pages,
    /// 128 KiB) with its terminating NUL. A longer one fails the program's start (E2BIG).
    public static let maximumArgumentBytes = 128 * 1024 - 1
    /// The most bytes of a command's arguments together (each with its NUL and pointer), half the
    /// kernel's usual 2 MiB for arguments and environment together, so the environment fits too.
    public static let maximumArgumentsBytes = 1 << 20

    /// Why `argument` cannot be passed to a program, nil when it can: a NUL ends a C string, so
    /// the kernel would pass what comes before it only (`/bin/echo\0garbage` runs `/bin/echo`).
    public static func problem(_ argument: String) -> String? {
        if argument.utf8.contains(0) {
            return "a NUL character cannot be passed to a program (the kernel ends the argument there)"
        }
        let bytes = argument.utf8.count
        if bytes > maximumArgumentBytes {
            return "an argument of \(bytes) bytes: the kernel passes at most \(maximumArgumentBytes) in one "
                + "(MAX_ARG_STRLEN, 128 KiB with its NUL)"
        }
        return nil
    }
}
