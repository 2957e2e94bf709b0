package dev.latencylab.harness.measure

import kotlin.math.roundToLong

/** `Server-Timing: app;dur=1.234` (ms) → 1234 µs; the first metric with a `dur`. Same rule as the host probe. */
object ServerTiming {
    fun parseMicros(value: String?): Long? {
        if (value.isNullOrBlank()) return null
        for (metric in value.split(',')) {
            for (param in metric.split(';').drop(1)) {
                val (key, raw) = param.split('=', limit = 2).let { it[0].trim() to it.getOrElse(1) { "" } }
                if (key.equals("dur", ignoreCase = true)) {
                    val ms = raw.trim().trim('"').toDoubleOrNull() ?: return null
                    return maxOf(0L, (ms * 1000).roundToLong())
                }
            }
        }
        return null
    }
}
