package dev.latencylab.harness.android

import android.content.Context
import android.os.PowerManager
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config

/** PowerManager.getCurrentThermalStatus → the fingerprint's names (Robolectric, Android 10). */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [29])
class AndroidThermalStatusTest {
    private val context: Context get() = RuntimeEnvironment.getApplication()

    @Test
    fun `each of Android's thermal statuses reads as its own name`() {
        val power = context.getSystemService(PowerManager::class.java)
        val read = (0..6).map { status ->
            shadowOf(power).setCurrentThermalStatus(status)
            AndroidThermalStatus.read(context)
        }
        assertEquals(listOf("none", "light", "moderate", "severe", "critical", "emergency", "shutdown"), read)
    }

    @Test
    fun `the names follow Android's own constants`() {
        assertEquals("none", AndroidThermalStatus.name(PowerManager.THERMAL_STATUS_NONE))
        assertEquals("severe", AndroidThermalStatus.name(PowerManager.THERMAL_STATUS_SEVERE))
        assertEquals("shutdown", AndroidThermalStatus.name(PowerManager.THERMAL_STATUS_SHUTDOWN))
    }

    @Test
    fun `a status this Android does not name is null`() {
        assertNull(AndroidThermalStatus.name(7))
        assertNull(AndroidThermalStatus.name(-1))
    }
}
