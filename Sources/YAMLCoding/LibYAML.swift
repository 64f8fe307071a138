import CYaml

// The only file that calls libyaml: its parser turns text into events (YAMLComposer builds the
// tree), its emitter turns a tree back into text. libyaml is YAML 1.1, the C library behind
// PyYAML and Yams.

extension YAMLNode {
    /// Parses a one-document YAML text (`yaml_parser_parse`); nil when it holds no document
    /// (empty, or only comments).
    public static func parse(_ text: String) throws(YAMLError) -> YAMLNode? {
        let reader = try YAMLEventReader(bytes: Array(text.utf8))
        var composer = YAMLComposer()
        while let event = try reader.next() { try composer.handle(event) }
        return composer.root
    }
}

/// libyaml's parser over a text held once, one event at a time: for files too big to hold as a
/// node tree (a recording's events), read as a stream with the structure around them composed
/// node by node (``node(startingWith:)``). ``YAMLNode/parse(_:)`` is this reader feeding one
/// composer.
public final class YAMLEventReader {
    private let bytes: [UInt8]
    /// How far libyaml has read `bytes`.
    private var consumed = 0
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    /// Composes the nodes asked for with ``node(startingWith:)``: its anchors and its alias budget
    /// span the whole text, as in one composed document.
    private var composer = YAMLComposer()
    /// The position just after the text, computed when a mark past the last line needs it.
    private var endMark: YAMLMark?
    private var lineBreaks: Int

    /// A reader over `bytes` (UTF-8, or UTF-16 with a byte order mark, as libyaml reads them).
    public init(bytes: [UInt8]) throws(YAMLError) {
        self.bytes = bytes
        lineBreaks = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        parser = .allocate(capacity: 1)
        guard yaml_parser_initialize(parser) == 1 else {
            parser.deallocate()
            throw YAMLError("out of memory", at: YAMLMark(line: 1, column: 1))
        }
        yaml_parser_set_input(
            parser,
            { context, buffer, size, read in
                guard let context, let buffer, let read else { return 0 }
                let reader = Unmanaged<YAMLEventReader>.fromOpaque(context).takeUnretainedValue()
                let count = min(size, reader.bytes.count - reader.consumed)
                if count > 0 {
                    reader.bytes.withUnsafeBufferPointer { source in
                        buffer.update(from: source.baseAddress! + reader.consumed, count: count)
                    }
                }
                reader.consumed += count
                read.pointee = count
                return 1
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
    }

    /// The next event (stream start and end are not reported); nil at the end of the stream.
    public func next() throws(YAMLError) -> YAMLEvent? {
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) == 1 else { throw parserError() }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { return nil }
            if let converted = try convert(event) { return converted }
        }
    }

    /// The whole node `first` begins (read on to its end), composed as ``YAMLNode/parse(_:)``
    /// composes a document's nodes: aliases resolved (anchors from earlier nodes included), keys
    /// unique, merge keys applied, the same depth and alias limits.
    public func node(startingWith first: YAMLEvent) throws(YAMLError) -> YAMLNode {
        switch first {
        case .scalar, .alias, .sequenceStart, .mappingStart: break
        case .documentStart(let mark): throw YAMLError("expected a value, found a document start", at: mark)
        case .documentEnd, .sequenceEnd, .mappingEnd:
            throw YAMLError("expected a value", at: clamped(YAMLMark(parser.pointee.mark)))
        }
        try composer.handle(first)
        while true {
            if let node = composer.takeRoot() { return node }
            guard let event = try next() else {
                throw YAMLError("the text ends inside a value", at: clamped(YAMLMark(parser.pointee.mark)))
            }
            try composer.handle(event)
        }
    }

    /// libyaml puts a node it makes up at the end of a text that does not end with a line break
    /// (the empty value of a document of comments) one line further, where no editor can go:
    /// such marks move to the end of the last line.
    private func clamped(_ mark: YAMLMark) -> YAMLMark {
        // libyaml also breaks lines at a lone CR and at U+0085/2028/2029, so it counts at least
        // as many lines as there are LFs: only a mark past them needs the real end.
        guard mark.line > lineBreaks + 1 else { return mark }
        let end = endMark ?? YAMLMark(after: String(decoding: bytes, as: UTF8.self))
        endMark = end
        return mark.line > end.line ? end : mark
    }

    private func convert(_ event: yaml_event_t) throws(YAMLError) -> YAMLEvent? {
        let mark = clamped(YAMLMark(event.start_mark))
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(Self.string(event.data.alias.anchor) ?? "", at: mark)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = data.value.map { pointer in
                String(decoding: UnsafeBufferPointer(start: pointer, count: data.length), as: UTF8.self)
            }
            let style: YAMLScalar.Style =
                switch data.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: .literal
                case YAML_FOLDED_SCALAR_STYLE: .folded
                default: .plain
                }
            let scalar = YAMLScalar(text ?? "", style: style, tag: try Self.scalarTag(Self.string(data.tag), at: mark))
            return .scalar(scalar, anchor: Self.string(data.anchor), at: mark)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return .sequenceStart(tag: Self.string(data.tag), anchor: Self.string(data.anchor), at: mark)
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return .mappingStart(tag: Self.string(data.tag), anchor: Self.string(data.anchor), at: mark)
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        default:
            return nil
        }
    }

    /// `!!str` and the other standard scalar tags; `!` (non-specific: "a string") counts as `!!str`.
    private static func scalarTag(_ tag: String?, at mark: YAMLMark) throws(YAMLError) -> YAMLScalar.Tag? {
        guard let tag else { return nil }
        if tag == "!" { return .str }
        let prefix = "tag:yaml.org,2002:"
        guard tag.hasPrefix(prefix), let known = YAMLScalar.Tag(rawValue: String(tag.dropFirst(prefix.count))) else {
            throw YAMLError("unsupported tag '\(tag)'", at: mark)
        }
        return known
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// Where libyaml found the problem, said in the project's words (``YAMLSyntaxAdvice``) with
    /// libyaml's after them. Reader errors (bytes YAML does not allow, such as control
    /// characters) come with a byte offset instead of a mark, and libyaml's words alone.
    private func parserError() -> YAMLError {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unreadable YAML"
        if state.error == YAML_READER_ERROR {
            let prefix = bytes[..<min(state.problem_offset, bytes.count)]
            return YAMLError(problem, at: YAMLMark(after: String(decoding: prefix, as: UTF8.self)))
        }
        // At the end of a text that does not end with a line break, libyaml counts one more
        // line; point at the end of the last one instead, where an editor can go.
        let mark = clamped(YAMLMark(state.problem_mark))
        let context = state.context.map { String(cString: $0) }
        let message = YAMLSyntaxAdvice.message(
            problem: problem, at: mark, context: context,
            contextMark: context.map { _ in YAMLMark(state.context_mark) },
            text: String(decoding: bytes, as: UTF8.self))
        return YAMLError(message, at: mark)
    }
}

extension YAMLMark {
    /// libyaml counts from 0.
    init(_ mark: yaml_mark_t) {
        self.init(line: mark.line + 1, column: mark.column + 1)
    }
}

extension YAMLNode {
    /// The node as a YAML document in block style (`yaml_emitter_emit`), two-space indents, no
    /// line wrapping. Strings that would read back as something else (`'0660'`, `'true'`) are
    /// quoted, and so is whatever libyaml cannot write plain (`'*'`).
    public func emitted() throws(YAMLError) -> String {
        let emitter = UnsafeMutablePointer<yaml_emitter_t>.allocate(capacity: 1)
        defer { emitter.deallocate() }
        guard yaml_emitter_initialize(emitter) == 1 else {
            throw YAMLError("out of memory", at: mark)
        }
        defer { yaml_emitter_delete(emitter) }
        let output = OutputBuffer()
        let context = Unmanaged.passUnretained(output).toOpaque()
        yaml_emitter_set_output(
            emitter,
            { context, bytes, count in
                guard let context, let bytes else { return 0 }
                Unmanaged<OutputBuffer>.fromOpaque(context).takeUnretainedValue().bytes
                    .append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
                return 1
            }, context)
        yaml_emitter_set_indent(emitter, 2)
        yaml_emitter_set_width(emitter, -1)
        yaml_emitter_set_unicode(emitter, 1)
        try withExtendedLifetime(output) { () throws(YAMLError) in
            var event = yaml_event_t()
            yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING)
            try emit(&event, emitter)
            yaml_document_start_event_initialize(&event, nil, nil, nil, 1)
            try emit(&event, emitter)
            try emitNode(emitter)
            yaml_document_end_event_initialize(&event, 1)
            try emit(&event, emitter)
            yaml_stream_end_event_initialize(&event)
            try emit(&event, emitter)
        }
        return String(decoding: output.bytes, as: UTF8.self)
    }

    private func emitNode(_ emitter: UnsafeMutablePointer<yaml_emitter_t>) throws(YAMLError) {
        var event = yaml_event_t()
        switch content {
        case .scalar(let scalar):
            // A tagged scalar keeps its tag (`!!int 5`, `!!str 0660`), so it reads back as it was read.
            let tag = scalar.tag.map { "tag:yaml.org,2002:\($0.rawValue)" }
            let plain = scalar.style == .plain
            var text = Array(scalar.text.utf8)
            var tagText = Array((tag ?? "").utf8CString).map { UInt8(bitPattern: $0) }
            let length = Int32(text.count)
            text.withUnsafeMutableBufferPointer { buffer in
                tagText.withUnsafeMutableBufferPointer { tagBuffer in
                    _ = yaml_scalar_event_initialize(
                        &event, nil, tag == nil ? nil : tagBuffer.baseAddress, buffer.baseAddress, length,
                        plain && tag == nil ? 1 : 0, tag == nil ? 1 : 0,
                        plain ? YAML_ANY_SCALAR_STYLE : YAML_SINGLE_QUOTED_SCALAR_STYLE)
                }
            }
            try emit(&event, emitter)
        case .sequence(let items):
            yaml_sequence_start_event_initialize(&event, nil, nil, 1, YAML_BLOCK_SEQUENCE_STYLE)
            try emit(&event, emitter)
            for item in items { try item.emitNode(emitter) }
            yaml_sequence_end_event_initialize(&event)
            try emit(&event, emitter)
        case .mapping(let pairs):
            yaml_mapping_start_event_initialize(&event, nil, nil, 1, YAML_BLOCK_MAPPING_STYLE)
            try emit(&event, emitter)
            for pair in pairs {
                try pair.key.emitNode(emitter)
                try pair.value.emitNode(emitter)
            }
            yaml_mapping_end_event_initialize(&event)
            try emit(&event, emitter)
        }
    }

    /// Hands the event to the emitter, which owns it from then on.
    private func emit(_ event: inout yaml_event_t, _ emitter: UnsafeMutablePointer<yaml_emitter_t>) throws(YAMLError) {
        guard yaml_emitter_emit(emitter, &event) == 1 else {
            let problem = emitter.pointee.problem.map { String(cString: $0) } ?? "cannot write YAML"
            throw YAMLError(problem, at: mark)
        }
    }
}

/// Where the emitter's output callback appends.
private final class OutputBuffer {
    var bytes: [UInt8] = []
}
