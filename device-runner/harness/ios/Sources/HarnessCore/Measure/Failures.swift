import Foundation

/// Maps what URLSession reported (URLError codes) to the contract's error classes. Mirrors Failures.kt.
public enum Failures {
    public static func classify(_ error: Error) -> (ErrorClass, String) {
        let detail = "\(type(of: error)): \(error.localizedDescription)"
        guard let urlError = error as? URLError else { return (.other, detail) }
        switch urlError.code {
        case .cannotFindHost, .dnsLookupFailed: return (.dns, detail)
        case .cannotConnectToHost, .notConnectedToInternet: return (.connect, detail)
        case .timedOut: return (.timeout, detail)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return (.tls, detail)
        case .networkConnectionLost: return (.reset, detail)
        default: return (.other, detail)
        }
    }
}
