import Foundation
import GRPC
import NIOCore

/// The reference target's gRPC service `latencylab.target.v1.Target`, hand-encoded like the
/// target's latencylab_tools/grpcwire.py (no protoc). Mirrors TargetService.kt.
///
///     EchoRequest     { bytes payload = 1; uint32 delay_ms = 2; }
///     DownloadRequest { uint64 size = 1;  string name = 2; }
///     EchoReply { bytes payload = 1; }   DownloadChunk { bytes data = 1; }
public enum TargetService {
    public static let service = "latencylab.target.v1.Target"
    public static let echoPath = "/\(service)/Echo"
    public static let downloadPath = "/\(service)/Download"

    public struct Call {
        public let path: String
        public let streaming: Bool
        public let message: Data
        public let requestBytes: Int64
    }

    /// The contract's gRPC mapping; nil when the path has none.
    public static func map(_ request: PlannedRequest, body: Data) -> Call? {
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        func decimal(_ s: Substring) -> Int64? { s.count <= 12 && !s.isEmpty && s.allSatisfy(\.isNumber) ? Int64(s) : nil }
        if path == echoPath { return Call(path: echoPath, streaming: false, message: body, requestBytes: Int64(body.count)) }
        if path == downloadPath { return Call(path: downloadPath, streaming: true, message: body, requestBytes: Int64(body.count)) }
        if path == "/echo" { return Call(path: echoPath, streaming: false, message: echoRequest(body, delayMs: 0), requestBytes: Int64(body.count)) }
        if path.hasPrefix("/delay/"), let ms = decimal(path.dropFirst(7)) {
            return Call(path: echoPath, streaming: false, message: echoRequest(Data(), delayMs: ms), requestBytes: 0)
        }
        if path == "/healthz" { return Call(path: echoPath, streaming: false, message: echoRequest(Data(), delayMs: 0), requestBytes: 0) }
        if path.hasPrefix("/bytes/"), let n = decimal(path.dropFirst(7)) {
            return Call(path: downloadPath, streaming: true, message: downloadRequest(size: n, name: ""), requestBytes: 0)
        }
        if path.hasPrefix("/files/"), path.count > 7 {
            return Call(path: downloadPath, streaming: true, message: downloadRequest(size: 0, name: String(path.dropFirst(7))), requestBytes: 0)
        }
        return nil
    }

    public static func echoRequest(_ payload: Data, delayMs: Int64) -> Data {
        var out = Data()
        bytesField(1, payload, into: &out)
        varintField(2, delayMs, into: &out)
        return out
    }

    public static func downloadRequest(size: Int64, name: String) -> Data {
        var out = Data()
        varintField(1, size, into: &out)
        bytesField(2, Data(name.utf8), into: &out)
        return out
    }

    /// The length of field 1 of an EchoReply/DownloadChunk: the application bytes received.
    public static func dataLength(_ message: Data) throws -> Int {
        let bytes = [UInt8](message)
        var pos = 0
        var length = 0
        while pos < bytes.count {
            let key = try readVarint(bytes, &pos)
            switch key & 7 {
            case 0: _ = try readVarint(bytes, &pos)
            case 1: pos += 8
            case 2:
                let len = Int(try readVarint(bytes, &pos))
                guard pos + len <= bytes.count else { throw InvalidJobError(description: "truncated length-delimited field") }
                if key >> 3 == 1 { length = len } // proto3: the last occurrence wins
                pos += len
            case 5: pos += 4
            default: throw InvalidJobError(description: "unsupported wire type \(key & 7)")
            }
        }
        guard pos == bytes.count else { throw InvalidJobError(description: "truncated message") }
        return length
    }

    // proto3 omits fields at their default value.
    private static func varintField(_ number: UInt64, _ value: Int64, into out: inout Data) {
        guard value != 0 else { return }
        writeVarint(number << 3, into: &out)
        writeVarint(UInt64(value), into: &out)
    }

    private static func bytesField(_ number: UInt64, _ value: Data, into out: inout Data) {
        guard !value.isEmpty else { return }
        writeVarint(number << 3 | 2, into: &out)
        writeVarint(UInt64(value.count), into: &out)
        out.append(value)
    }

    private static func writeVarint(_ value: UInt64, into out: inout Data) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    private static func readVarint(_ buf: [UInt8], _ pos: inout Int) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard pos < buf.count else { throw InvalidJobError(description: "truncated varint") }
            let b = buf[pos]
            pos += 1
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            guard shift <= 63 else { throw InvalidJobError(description: "varint too long") }
        }
    }
}

/// Messages travel as their encoded bytes (the harness encodes them itself): the twin of RawBytes in TargetService.kt.
public struct RawBytes: GRPCPayload {
    public let data: Data

    public init(_ data: Data) { self.data = data }

    public init(serializedByteBuffer: inout ByteBuffer) throws {
        data = Data(serializedByteBuffer.readBytes(length: serializedByteBuffer.readableBytes) ?? [])
    }

    public func serialize(into buffer: inout ByteBuffer) throws {
        buffer.writeBytes(data)
    }
}
