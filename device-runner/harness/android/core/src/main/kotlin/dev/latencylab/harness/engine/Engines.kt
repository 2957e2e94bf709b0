package dev.latencylab.harness.engine

import dev.latencylab.harness.job.Arm
import dev.latencylab.harness.job.Protocol
import dev.latencylab.harness.measure.ErrorClass
import dev.latencylab.harness.measure.Failures
import dev.latencylab.harness.net.TrustMaterial
import io.grpc.internal.GrpcUtil
import okhttp3.OkHttp

/**
 * Picks the client for each arm's protocol: OkHttp for h1c/h1/h2, grpc-java (OkHttp
 * transport) for gRPC, the platform's HTTP/3 engine for h3.
 */
class Engines(private val http3: Http3EngineProvider?) {

    fun create(arm: Arm, settings: EngineSettings): ProtocolEngine {
        schemeProblem(arm)?.let { return FailingEngine(ErrorClass.PROTOCOL_MISMATCH, it, settings.clock) }
        val trust = try {
            TrustMaterial.of(arm.caBundlePem)
        } catch (e: Exception) {
            return FailingEngine(ErrorClass.TLS, "arm '${arm.label}': ${Failures.describe(e)}", settings.clock)
        }
        return when (arm.protocol) {
            Protocol.H1C, Protocol.H1, Protocol.H2 -> OkHttpEngine(arm, trust, settings)
            Protocol.GRPC -> GrpcEngine(arm, trust, settings)
            Protocol.H3 -> http3?.create(arm, trust, settings) ?: FailingEngine(
                ErrorClass.OTHER,
                "HTTP/3 needs Cronet on a device; this harness build has no HTTP/3 engine",
                settings.clock,
            )
        }
    }

    /** protocol → client implementation and version, read from the libraries at run time. */
    fun clientStack(protocol: Protocol): String = when (protocol) {
        Protocol.H1C, Protocol.H1, Protocol.H2 -> "okhttp ${OkHttp.VERSION}"
        Protocol.GRPC -> "grpc-java ${GrpcUtil.getGrpcBuildVersion().implementationVersion} (grpc-okhttp transport)"
        Protocol.H3 -> http3?.clientStack ?: "none (HTTP/3 needs Cronet on a device)"
    }

    companion object {
        /**
         * An origin whose scheme cannot carry the arm's protocol at all. An h2 arm on a
         * cleartext origin is let through: the client then really speaks HTTP/1.1, and that
         * observed fallback is reported as protocol_mismatch by the engine.
         */
        fun schemeProblem(arm: Arm): String? {
            val scheme = arm.origin.scheme
            return when (arm.protocol) {
                Protocol.H1C -> if (scheme != "http") "arm '${arm.label}': h1c is cleartext HTTP/1.1 but the origin is $scheme://" else null
                Protocol.H1, Protocol.GRPC, Protocol.H3 ->
                    if (scheme != "https") "arm '${arm.label}': ${arm.protocol.wire} needs TLS but the origin is $scheme://" else null
                Protocol.H2 -> null
            }
        }
    }
}
