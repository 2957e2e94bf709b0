package dev.latencylab.harness

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.latencylab.harness.contract.ContractSchemas
import dev.latencylab.harness.engine.Engines
import dev.latencylab.harness.job.Job
import dev.latencylab.harness.job.JobReader
import dev.latencylab.harness.jvm.KwikHttp3Provider
import dev.latencylab.harness.result.DeviceInfo
import dev.latencylab.harness.result.ResultDocument
import dev.latencylab.harness.result.ResultWriter
import java.io.BufferedReader
import java.io.File
import java.net.ServerSocket
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/** Paths inside the repository; surefire passes the repository root (pom.xml `systemPropertyVariables`). */
object Repo {
    val root: File = File(System.getProperty("latencylab.repo.dir") ?: "../../../..").canonicalFile
    val contract: File = File(System.getProperty("latencylab.contract.dir") ?: File(root, "device-runner/contract/latencylab_contract").path).canonicalFile
    val examples: File = File(contract, "examples")
    val deviceRunner: File = File(root, "device-runner")
    val python: File = File(root, ".venv/bin/python")

    /** The one source of truth: the repository's schema files, not the bundled copies. */
    val schemas: ContractSchemas by lazy { ContractSchemas.fromDirectory(contract) }

    /** The reference target's seeded file sizes (tools/latencylab_tools/data/seed_mid_image_series.json). */
    fun midFileSize(index: Int): Long =
        ObjectMapper().readTree(File(deviceRunner, "tools/latencylab_tools/data/seed_mid_image_series.json"))["image_bytes"][index - 1].asLong()
}

/**
 * The real reference target server (`python -m latencylab_tools.target`), started once for
 * the whole test run on free loopback ports with its own CA, stopped when the JVM exits.
 */
object ReferenceTarget {
    val tlsDir: File = Files.createTempDirectory("harness-target-tls").toFile()
    private val server = TargetProcess(tlsDir, deleteOnExit = true)
    val ready: JsonNode get() = server.ready

    val host get() = "127.0.0.1"
    val tlsPort: Int get() = ready["tls_port"].asInt()
    val plainPort: Int get() = ready["plain_port"].asInt()
    val h3Port: Int get() = ready["h3_port"].asInt()
    val caPem: String get() = File(ready["ca_file"].asText()).readText()
    // The target writes its CA and certificate when it starts.
    val serverCert: File get() = ready.let { File(tlsDir, "server.pem") }
    val serverKey: File get() = ready.let { File(tlsDir, "server.key") }
}

/**
 * A second reference target on other ports (a customer's second origin, for absolute URLs):
 * it reuses the first one's CA and certificate, so the arm's trust anchors cover both.
 */
object SecondReferenceTarget {
    private val server = TargetProcess(ReferenceTarget.tlsDir, deleteOnExit = false)
    val ready: JsonNode get() = ReferenceTarget.ready.let { server.ready }
    val tlsPort: Int get() = ready["tls_port"].asInt()
}

/** One `python -m latencylab_tools.target` process, started on first use, stopped when the JVM exits. */
class TargetProcess(private val tlsDir: File, private val deleteOnExit: Boolean) {
    private val mapper = ObjectMapper()
    private lateinit var process: Process
    val ready: JsonNode by lazy { start() }

    private fun start(): JsonNode {
        check(Repo.python.canExecute()) {
            "the reference target needs the project's Python venv at ${Repo.python} (run infra/bin/bootstrap.sh)"
        }
        process = ProcessBuilder(
            Repo.python.path, "-m", "latencylab_tools.target",
            "--host", "127.0.0.1", "--plain-port", "0", "--tls-port", "0",
            "--tls-dir", tlsDir.path, "--workers", "1",
        ).directory(Repo.deviceRunner).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        Runtime.getRuntime().addShutdownHook(Thread {
            process.destroy()
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly()
            if (deleteOnExit) tlsDir.deleteRecursively()
        })
        val line = BufferedReader(process.inputStream.reader()).readLine()
            ?: error("the reference target exited before it was ready (exit ${process.waitFor()})")
        val ready = mapper.readTree(line)
        check(ready["event"].asText() == "ready") { "unexpected first line from the target: $line" }
        return ready
    }
}

/** A loopback TCP port nobody listens on (bound, then released). */
fun unusedPort(): Int = ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()).use { it.localPort }

/** Builds job documents as JSON (so every test job also goes through JobReader and the job schema). */
class JobBuilder(private val runId: String = "test-run", private val timeoutMs: Int = 10_000) {
    private val mapper = ObjectMapper()
    private val arms = mapper.createArrayNode()
    private val requests = mapper.createArrayNode()
    private var gapMs = 0
    private var maxParallel: Int? = null
    private val pinned = mapper.createObjectNode()
    private var readiness: ObjectNode? = null

    fun arm(label: String, protocol: String, connection: String, origin: String, serverName: String? = null, ca: Boolean = true) = apply {
        arms.addObject().apply {
            put("label", label)
            put("protocol", protocol)
            put("connection", connection)
            put("origin", origin)
            put("server_name", serverName)
            put("ca_bundle_pem", if (ca) ReferenceTarget.caPem else null)
        }
    }

    fun request(
        arm: String, path: String, method: String = "GET", op: String = "get", bodyBytes: Int = 0,
        newConnection: Boolean = false, phase: String = "measure", step: Int? = null, part: String? = null,
        bodyB64: String? = null, expectStatus: Int? = null, origin: String? = null, group: Int? = null,
    ) = apply {
        requests.addObject().apply {
            put("seq", requests.size() - 1)
            put("arm", arm)
            put("phase", phase)
            put("op", op)
            put("method", method)
            put("path", path)
            if (bodyBytes > 0) put("body_bytes", bodyBytes)
            if (newConnection) put("new_connection", true)
            put("repetition", 0)
            put("step", step)
            if (part != null) put("part", part)
            if (bodyB64 != null) put("body_b64", bodyB64)
            if (expectStatus != null) put("expect_status", expectStatus)
            if (origin != null) put("origin", origin)
            if (group != null) put("group", group)
        }
    }

    fun gap(ms: Int) = apply { gapMs = ms }

    fun maxParallel(n: Int) = apply { maxParallel = n }

    /** A hosted run's checked address for `host` (job `pinned_addresses`). */
    fun pin(host: String, address: String) = apply { pinned.put(host, address) }

    /** The job's readiness check: fetch /healthz from `origin` first, the address judged against `labNetworks`. */
    fun readiness(origin: String, labNetworks: List<String> = emptyList()) = apply {
        readiness = mapper.createObjectNode().apply {
            put("origin", origin)
            put("path", "/healthz")
            if (labNetworks.isNotEmpty()) putArray("lab_networks").apply { labNetworks.forEach { add(it) } }
        }
    }

    fun json(): ObjectNode = mapper.createObjectNode().apply {
        put("contract", "latencylab.job/v1")
        put("run_id", runId)
        put("block", 0)
        put("attempt", 1)
        put("timeout_ms", timeoutMs)
        put("gap_ms", gapMs)
        maxParallel?.let { put("max_parallel", it) }
        set<JsonNode>("arms", arms)
        set<JsonNode>("requests", requests)
        if (pinned.size() > 0) set<JsonNode>("pinned_addresses", pinned)
        readiness?.let { set<JsonNode>("readiness", it) }
    }

    fun build(): Job = JobReader(Repo.schemas).fromTree(json())
}

val TEST_DEVICE = DeviceInfo(platform = "android", model = "Pixel 8", osVersion = "14", radio = "loopback", battery = 87.0, charging = true, temperature = 31.5)

/** Runs a job with the JVM engines and returns the result, checked against result.schema.json from the repository. */
fun runJob(job: Job): Pair<ResultDocument, ObjectNode> {
    val result = BlockRunner(Engines(KwikHttp3Provider)).run(job, TEST_DEVICE, "jvm-test")
    return result to ResultWriter(Repo.schemas).validated(result)
}

fun tlsOrigin(host: String = ReferenceTarget.host) = "https://$host:${ReferenceTarget.tlsPort}"
fun plainOrigin() = "http://${ReferenceTarget.host}:${ReferenceTarget.plainPort}"
