package dev.latencylab.harness.result

import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.node.ObjectNode

/** What the device reports about itself; the Android shell fills it from Android APIs, the JVM CLI from its options. */
data class DeviceInfo(
    val platform: String,
    val model: String,
    val osVersion: String,
    val radio: String? = null,
    val battery: Double? = null,
    val charging: Boolean? = null,
    val temperature: Double? = null,
    /**
     * The platform's own thermal status when the block starts, in its own names (Android's
     * PowerManager.getCurrentThermalStatus: none … shutdown); null when it cannot be read.
     * The runner's readiness gate holds the phone above its limit.
     */
    val thermalStatus: String? = null,
) {
    init {
        require(platform in PLATFORMS) { "platform must be one of ${PLATFORMS.joinToString("|")}, got '$platform'" }
        require(battery == null || battery in 0.0..100.0) { "battery must be in 0..100 (%), got $battery" }
        require(temperature == null || temperature in -40.0..150.0) { "temperature must be in -40..150 (°C), got $temperature" }
        require(model.length <= 128) { "model must be at most 128 characters" }
        require(osVersion.length <= 64) { "os_version must be at most 64 characters" }
        require(radio == null || radio.length <= 64) { "radio must be at most 64 characters" }
        val names = THERMAL_STATUS[platform].orEmpty()
        require(thermalStatus == null || thermalStatus in names) {
            "thermal status on $platform must be one of ${names.joinToString("|").ifEmpty { "(none: leave it out)" }}, got '$thermalStatus'"
        }
    }

    companion object {
        val PLATFORMS = listOf("host", "android", "ios")

        /** result.schema.json `fingerprint.thermal_status`: each platform's own names, mildest first. */
        val THERMAL_STATUS = mapOf(
            "android" to listOf("none", "light", "moderate", "severe", "critical", "emergency", "shutdown"),
            "ios" to listOf("nominal", "fair", "serious", "critical"),
        )

        /** Android's PowerManager.THERMAL_STATUS_* constants (0 … 6) by name; null for anything else. */
        fun androidThermalStatus(code: Int): String? = THERMAL_STATUS.getValue("android").getOrNull(code)
    }
}

/** result.schema.json `fingerprint`. */
data class Fingerprint(
    val device: DeviceInfo,
    val harnessVersion: String,
    val clockSource: String,
    val clockResolutionUs: Double,
    /** protocol (h1c, h1, h2, h3, grpc) → client implementation and version. */
    val clientStacks: Map<String, String>,
) {
    fun toJson(nodes: JsonNodeFactory = JsonNodeFactory.instance): ObjectNode = nodes.objectNode().apply {
        put("platform", device.platform)
        put("model", device.model)
        put("os_version", device.osVersion)
        put("harness_version", harnessVersion)
        put("radio", device.radio)
        put("battery", device.battery)
        put("charging", device.charging)
        put("temperature", device.temperature)
        put("thermal_status", device.thermalStatus)
        put("clock_source", clockSource)
        put("clock_resolution_us", clockResolutionUs)
        set<ObjectNode>("client_stacks", nodes.objectNode().apply { clientStacks.toSortedMap().forEach { (k, v) -> put(k, v) } })
    }
}
