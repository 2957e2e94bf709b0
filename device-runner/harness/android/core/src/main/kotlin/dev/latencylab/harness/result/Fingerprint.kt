package dev.latencylab.harness.result

import com.fasterxml.jackson.databind.node.JsonNodeFactory
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.latencylab.harness.contract.ContractSchemas

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
     * The platform's own thermal status in its own names (Android's PowerManager: none, light,
     * moderate, severe, critical, emergency, shutdown); null where it cannot be read.
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
        require(thermalStatus == null || thermalStatus.length <= 16) { "thermal_status must be at most 16 characters" }
    }

    companion object {
        val PLATFORMS = listOf("host", "android", "ios")
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
        // Optional in the contract: written only where the contract bundled with this build
        // defines it, so a build of the harness never writes a key its own schema refuses.
        if (device.thermalStatus != null && THERMAL_STATUS in ContractSchemas.bundledFingerprintFields) {
            put(THERMAL_STATUS, device.thermalStatus)
        }
        put("clock_source", clockSource)
        put("clock_resolution_us", clockResolutionUs)
        set<ObjectNode>("client_stacks", nodes.objectNode().apply { clientStacks.toSortedMap().forEach { (k, v) -> put(k, v) } })
    }

    companion object {
        const val THERMAL_STATUS = "thermal_status"
    }
}
