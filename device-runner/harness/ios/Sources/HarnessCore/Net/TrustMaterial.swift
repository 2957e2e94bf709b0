import Foundation
import Security

/// What an arm trusts: the system's anchors plus the arm's `ca_bundle_pem`; the certificate is
/// checked against the arm's TLS name. Verification is never turned off. Mirrors TrustMaterial.kt.
public struct TrustMaterial {
    public let extraAnchors: [SecCertificate]

    public static func of(_ caBundlePem: String?) throws -> TrustMaterial {
        guard let pem = caBundlePem, !pem.isEmpty else { return TrustMaterial(extraAnchors: []) }
        let blocks = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
        let certs: [SecCertificate] = blocks.compactMap { block in
            let b64 = block.components(separatedBy: "-----END CERTIFICATE-----")[0]
                .components(separatedBy: .whitespacesAndNewlines).joined()
            return Data(base64Encoded: b64).flatMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        }
        guard !certs.isEmpty, certs.count == blocks.count else {
            throw InvalidJobError(description: "ca_bundle_pem is not a PEM certificate bundle")
        }
        return TrustMaterial(extraAnchors: certs)
    }

    /// Evaluates a server trust for `tlsName` with the extra anchors added to the system's.
    public func evaluate(_ trust: SecTrust, tlsName: String) -> Bool {
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, tlsName as CFString))
        if !extraAnchors.isEmpty {
            SecTrustSetAnchorCertificates(trust, extraAnchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, false) // keep the system's anchors too
        }
        var error: CFError?
        return SecTrustEvaluateWithError(trust, &error)
    }
}
