package dev.latencylab.harness.android

import android.content.Context
import android.os.PowerManager

/**
 * The phone's thermal status (PowerManager.getCurrentThermalStatus, API 29 = the harness's
 * minSdk) in Android's own names, as the fingerprint's `thermal_status` carries them: a phone
 * that throttles measures slower, and the runner's readiness gate judges by this value.
 */
object AndroidThermalStatus {
    /** PowerManager.THERMAL_STATUS_* → its name; the order is Android's (0 none … 6 shutdown). */
    val NAMES: Map<Int, String> = mapOf(
        PowerManager.THERMAL_STATUS_NONE to "none",
        PowerManager.THERMAL_STATUS_LIGHT to "light",
        PowerManager.THERMAL_STATUS_MODERATE to "moderate",
        PowerManager.THERMAL_STATUS_SEVERE to "severe",
        PowerManager.THERMAL_STATUS_CRITICAL to "critical",
        PowerManager.THERMAL_STATUS_EMERGENCY to "emergency",
        PowerManager.THERMAL_STATUS_SHUTDOWN to "shutdown",
    )

    /** A status this Android version does not name (a newer one's) is null, never a guess. */
    fun name(status: Int): String? = NAMES[status]

    /** Null when the phone has no PowerManager to ask. */
    fun read(context: Context): String? {
        val power = context.getSystemService(PowerManager::class.java) ?: return null
        return name(power.currentThermalStatus)
    }
}
