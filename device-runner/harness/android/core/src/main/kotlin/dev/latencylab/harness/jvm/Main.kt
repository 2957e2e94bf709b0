package dev.latencylab.harness.jvm

import dev.latencylab.harness.BlockRunner
import dev.latencylab.harness.engine.Engines
import dev.latencylab.harness.job.InvalidJobException
import dev.latencylab.harness.job.JobReader
import dev.latencylab.harness.result.DeviceInfo
import dev.latencylab.harness.result.InvalidResultException
import dev.latencylab.harness.result.ResultWriter
import java.io.File
import java.io.PrintStream
import java.security.Security
import kotlin.system.exitProcess

/**
 * `java -jar harness-core.jar --job JOB.json --out RESULT.json [device options]`: runs one job
 * on this JVM and writes the result document. The lab's test fakes (standing in for fastlane
 * and a phone) run the real core this way; so can a Linux host.
 *
 * Exit 0 when a result document was written (failed requests are samples in it), 2 for bad
 * options, 3 for an unreadable or invalid job, 4 when the harness's own result broke the
 * contract (a bug: nothing is written).
 */
fun main(args: Array<String>) {
    exitProcess(Cli(System.out, System.err).run(args))
}

class Cli(private val out: PrintStream, private val err: PrintStream) {
    fun run(args: Array<String>): Int {
        if (args.any { it == "--help" || it == "-h" }) {
            out.println(USAGE)
            return 0
        }
        val options = try {
            CliOptions.parse(args)
        } catch (e: IllegalArgumentException) {
            err.println("harness-core: ${e.message}")
            err.println(USAGE)
            return EXIT_USAGE
        }
        disableJvmNameCache()
        val job = try {
            JobReader().read(options.job)
        } catch (e: InvalidJobException) {
            err.println("harness-core: ${e.message}")
            return EXIT_BAD_JOB
        }
        val result = BlockRunner(Engines(KwikHttp3Provider)).run(job, options.device, "jvm")
        try {
            ResultWriter().write(result, options.out)
        } catch (e: InvalidResultException) {
            err.println("harness-core: ${e.message}")
            return EXIT_BAD_RESULT
        }
        val failed = result.samples.count { it.measurement.failed }
        err.println("harness-core: ${result.samples.size} samples ($failed failed) written to ${options.out}")
        return 0
    }

    companion object {
        const val EXIT_USAGE = 2
        const val EXIT_BAD_JOB = 3
        const val EXIT_BAD_RESULT = 4

        val USAGE = """
            usage: java -jar harness-core.jar --job JOB.json --out RESULT.json
                     [--platform host|android|ios] [--model NAME] [--os-version VERSION]
                     [--radio wifi|cellular-lte|ethernet|loopback|…] [--battery 0..100]
                     [--charging true|false] [--temperature -40..150]
                     [--thermal-status NAME]   (android: none|light|moderate|severe|critical|emergency|shutdown,
                                                ios: nominal|fair|serious|critical)
        """.trimIndent()

        /**
         * The JVM caches host names for 30 s; a cold request must really look its name up.
         * Must run before the first lookup (InetAddress reads the policy once).
         */
        fun disableJvmNameCache() {
            Security.setProperty("networkaddress.cache.ttl", "0")
            Security.setProperty("networkaddress.cache.negative.ttl", "0")
        }
    }
}

/** The CLI's options; bad values raise IllegalArgumentException naming the option and its allowed range. */
data class CliOptions(val job: File, val out: File, val device: DeviceInfo) {
    companion object {
        private val KNOWN = setOf(
            "--job", "--out", "--platform", "--model", "--os-version", "--radio", "--battery", "--charging", "--temperature",
            "--thermal-status",
        )

        fun parse(args: Array<String>): CliOptions {
            val values = HashMap<String, String>()
            var i = 0
            while (i < args.size) {
                val name = args[i]
                require(name in KNOWN) { "unknown option '$name'" }
                require(i + 1 < args.size) { "option $name needs a value" }
                require(name !in values) { "option $name given twice" }
                values[name] = args[i + 1]
                i += 2
            }
            val job = File(values["--job"] ?: throw IllegalArgumentException("--job JOB.json is required"))
            val out = File(values["--out"] ?: throw IllegalArgumentException("--out RESULT.json is required"))
            val device = DeviceInfo(
                platform = values["--platform"] ?: "host",
                model = values["--model"] ?: "JVM ${System.getProperty("os.name")} ${System.getProperty("os.arch")}",
                osVersion = values["--os-version"] ?: System.getProperty("os.version"),
                radio = values["--radio"],
                battery = values["--battery"]?.let { number("--battery", it, 0.0, 100.0) },
                charging = values["--charging"]?.let {
                    when (it) {
                        "true" -> true
                        "false" -> false
                        else -> throw IllegalArgumentException("--charging must be true or false, got '$it'")
                    }
                },
                temperature = values["--temperature"]?.let { number("--temperature", it, -40.0, 150.0) },
                thermalStatus = values["--thermal-status"],
            )
            return CliOptions(job, out, device)
        }

        private fun number(option: String, text: String, min: Double, max: Double): Double {
            val value = text.toDoubleOrNull()
            require(value != null && value.isFinite() && value in min..max) { "$option must be a number in $min..$max, got '$text'" }
            return value
        }
    }
}
