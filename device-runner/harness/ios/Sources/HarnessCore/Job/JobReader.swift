import Foundation

/// The job document cannot be used; the message names the field. Mirrors InvalidJobException.
public struct InvalidJobError: Error, CustomStringConvertible {
    public let description: String
}

/// Reads a job document. Mirrors JobReader.kt, except that no JSON Schema validator runs on
/// the phone: Codable enforces types and required fields (its errors name the key path), the
/// checks below add the schema's enums and bounds the harness relies on and what a schema
/// cannot say; the runner validates every result against result.schema.json anyway.
public struct JobReader {
    public init() {}

    public func read(url: URL) throws -> Job {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InvalidJobError(description: "cannot read job file \(url.path): \(error.localizedDescription)")
        }
        return try read(data: data)
    }

    public func read(data: Data) throws -> Job {
        let doc: JobDocument
        do { doc = try JSONDecoder().decode(JobDocument.self, from: data) } catch let DecodingError.keyNotFound(key, ctx) {
            throw InvalidJobError(description: "\(path(ctx.codingPath + [key])): is required")
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw InvalidJobError(description: "\(path(ctx.codingPath)): \(ctx.debugDescription)")
        } catch let DecodingError.valueNotFound(_, ctx) {
            throw InvalidJobError(description: "\(path(ctx.codingPath)): must not be null")
        } catch let DecodingError.dataCorrupted(ctx) {
            throw InvalidJobError(description: "\(path(ctx.codingPath)): \(ctx.debugDescription)")
        }
        return try fromDocument(doc)
    }

    func fromDocument(_ doc: JobDocument) throws -> Job {
        guard doc.contract == "latencylab.job/v1" else { throw InvalidJobError(description: "$.contract: must be latencylab.job/v1") }
        guard (100...600_000).contains(doc.timeout_ms) else { throw InvalidJobError(description: "$.timeout_ms: must be in 100..600000") }
        guard (1...16).contains(doc.arms.count) else { throw InvalidJobError(description: "$.arms: must hold 1..16 arms") }
        guard (1...20_000).contains(doc.requests.count) else { throw InvalidJobError(description: "$.requests: must hold 1..20000 requests") }
        var labels = Set<String>()
        let arms: [Arm] = try doc.arms.enumerated().map { i, a in
            guard let origin = Origin.parse(a.origin) else {
                throw InvalidJobError(description: "$.arms[\(i)].origin: '\(a.origin)' is not scheme://host[:port] with a port in 1..65535")
            }
            guard labels.insert(a.label).inserted else {
                throw InvalidJobError(description: "$.arms[\(i)].label: '\(a.label)' is used by more than one arm")
            }
            return Arm(label: a.label, protocol: a.protocol, connection: a.connection, origin: origin,
                       serverName: a.server_name, caBundlePem: a.ca_bundle_pem)
        }
        var seen = Set<Int>()
        let requests: [PlannedRequest] = try doc.requests.enumerated().map { i, r in
            guard labels.contains(r.arm) else {
                throw InvalidJobError(description: "$.requests[\(i)].arm: '\(r.arm)' is not an arm label; known: \(labels.sorted().joined(separator: ", "))")
            }
            guard r.seq >= 0, seen.insert(r.seq).inserted else {
                throw InvalidJobError(description: "$.requests[\(i)].seq: \(r.seq) is negative or appears more than once")
            }
            guard (0...10_000_000).contains(r.body_bytes ?? 0) else {
                throw InvalidJobError(description: "$.requests[\(i)].body_bytes: must be in 0..10000000")
            }
            var body: Data?
            if let b64 = r.body_b64 {
                guard r.body_bytes == nil else {
                    throw InvalidJobError(description: "$.requests[\(i)]: body_b64 and body_bytes never go together")
                }
                guard let decoded = Data(base64Encoded: b64), decoded.count <= 1_000_000 else {
                    throw InvalidJobError(description: "$.requests[\(i)].body_b64: must be base64 of at most 1000000 bytes")
                }
                body = decoded
            }
            if let expected = r.expect_status, !(100...599).contains(expected) {
                throw InvalidJobError(description: "$.requests[\(i)].expect_status: must be in 100..599")
            }
            var origin: Origin?
            if let text = r.origin {
                guard let parsed = Origin.parse(text) else {
                    throw InvalidJobError(description: "$.requests[\(i)].origin: '\(text)' is not scheme://host[:port] with a port in 1..65535")
                }
                origin = parsed
            }
            if let group = r.group, group < 0 { throw InvalidJobError(description: "$.requests[\(i)].group: must be >= 0") }
            return PlannedRequest(seq: r.seq, arm: r.arm, phase: r.phase, op: r.op, method: r.method, path: r.path,
                                  headers: r.headers ?? [:], bodyBytes: r.body_bytes ?? 0, newConnection: r.new_connection ?? false,
                                  period: r.period, repetition: r.repetition, step: r.step, part: r.part,
                                  serverDelayMs: r.server_delay_ms, body: body, expectStatus: r.expect_status,
                                  origin: origin, group: r.group)
        }.sorted { $0.seq < $1.seq }
        let maxParallel = doc.max_parallel ?? 6
        guard (1...64).contains(maxParallel) else { throw InvalidJobError(description: "$.max_parallel: must be in 1..64") }
        return Job(runId: doc.run_id, block: doc.block, attempt: doc.attempt, timeoutMs: doc.timeout_ms,
                   gapMs: doc.gap_ms ?? 0, maxParallel: maxParallel, arms: arms, requests: requests,
                   readiness: try readiness(doc.readiness))
    }

    private func readiness(_ doc: JobDocument.ReadinessDoc?) throws -> ReadinessRequest? {
        guard let doc = doc else { return nil }
        guard let origin = Origin.parse(doc.origin), origin.scheme == "http" else {
            throw InvalidJobError(description: "$.readiness.origin: '\(doc.origin)' is not http://host[:port] with a port in 1..65535")
        }
        let networks: [Cidr] = try (doc.lab_networks ?? []).enumerated().map { i, text in
            guard let cidr = Cidr.parse(text) else {
                throw InvalidJobError(description: "$.readiness.lab_networks[\(i)]: '\(text)' is not an address/prefix range")
            }
            return cidr
        }
        let path = doc.path ?? ReadinessRequest.defaultPath
        guard path.hasPrefix("/") else { throw InvalidJobError(description: "$.readiness.path: must start with /") }
        return ReadinessRequest(origin: origin, path: path, labNetworks: networks)
    }

    private func path(_ keys: [CodingKey]) -> String {
        "$" + keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}

/// The wire shape of job.schema.json (field names as on the wire).
struct JobDocument: Decodable {
    struct ArmDoc: Decodable {
        let label: String
        let `protocol`: ArmProtocol
        let connection: ConnectionPolicy
        let origin: String
        let server_name: String?
        let ca_bundle_pem: String?
    }

    struct RequestDoc: Decodable {
        let seq: Int
        let arm: String
        let phase: String
        let op: String
        let method: String
        let path: String
        let headers: [String: String]?
        let body_bytes: Int?
        let new_connection: Bool?
        let period: Int?
        let repetition: Int?
        let step: Int?
        let part: String?
        let server_delay_ms: Double?
        let body_b64: String?
        let expect_status: Int?
        let origin: String?
        let group: Int?
    }

    struct ReadinessDoc: Decodable {
        let origin: String
        let path: String?
        let lab_networks: [String]?
    }

    let contract: String
    let run_id: String
    let block: Int
    let attempt: Int
    let timeout_ms: Int
    let gap_ms: Int?
    let max_parallel: Int?
    let arms: [ArmDoc]
    let requests: [RequestDoc]
    let readiness: ReadinessDoc?
}
