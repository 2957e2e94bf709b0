import Foundation

/// `{"client_ts_us":<epoch µs>,"pad":"xxx…"}` padded to exactly `size` bytes. Mirrors RequestBodies.kt.
public enum RequestBodies {
    public static func generate(size: Int, epochMicros stamp: Int64 = epochMicros()) -> Data {
        let envelope = Array("{\"client_ts_us\":\(stamp),\"pad\":\"".utf8)
        if size <= envelope.count + 2 { return Data(envelope.prefix(size)) }
        var body = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        body.replaceSubrange(0..<envelope.count, with: envelope)
        body[size - 2] = UInt8(ascii: "\"")
        body[size - 1] = UInt8(ascii: "}")
        return Data(body)
    }
}
