package dev.latencylab.harness.android

import android.content.Context
import android.content.Intent
import android.net.ConnectivityManager
import android.net.NetworkCapabilities
import android.os.BatteryManager
import android.os.PowerManager
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.Shadows.shadowOf
import org.robolectric.annotation.Config
import org.robolectric.shadows.ShadowBuild
import org.robolectric.shadows.ShadowNetworkCapabilities

/** The fingerprint's device part as Android 10's framework hands it over (Robolectric). */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [29])
class AndroidDeviceInfoTest {
    private val context: Context get() = RuntimeEnvironment.getApplication()

    /** What BatteryService broadcasts (sticky): level/scale, status, temperature in tenths of °C. */
    private fun battery(level: Int, scale: Int, status: Int, tenthsOfDegree: Int) {
        @Suppress("DEPRECATION")
        context.sendStickyBroadcast(
            Intent(Intent.ACTION_BATTERY_CHANGED)
                .putExtra(BatteryManager.EXTRA_LEVEL, level)
                .putExtra(BatteryManager.EXTRA_SCALE, scale)
                .putExtra(BatteryManager.EXTRA_STATUS, status)
                .putExtra(BatteryManager.EXTRA_TEMPERATURE, tenthsOfDegree),
        )
    }

    private fun activeTransport(transport: Int) {
        val connectivity = context.getSystemService(ConnectivityManager::class.java)
        val capabilities = ShadowNetworkCapabilities.newInstance()
        shadowOf(capabilities).addTransportType(transport)
        shadowOf(connectivity).setNetworkCapabilities(connectivity.activeNetwork, capabilities)
    }

    @Test
    fun `model, release, battery, charging, temperature, radio and thermal status come from the platform`() {
        ShadowBuild.setModel("Pixel 8")
        battery(level = 174, scale = 200, status = BatteryManager.BATTERY_STATUS_CHARGING, tenthsOfDegree = 315)
        activeTransport(NetworkCapabilities.TRANSPORT_WIFI)
        shadowOf(context.getSystemService(PowerManager::class.java)).setCurrentThermalStatus(PowerManager.THERMAL_STATUS_SEVERE)

        val device = AndroidDeviceInfo.read(context)

        assertEquals("android", device.platform)
        assertEquals("Pixel 8", device.model)
        assertEquals("10", device.osVersion)
        assertEquals(87.0, device.battery!!, 0.0)
        assertEquals(true, device.charging)
        assertEquals(31.5, device.temperature!!, 0.0)
        assertEquals("wifi", device.radio)
        assertEquals("severe", device.thermalStatus)
    }

    @Test
    fun `a full battery counts as charging, a discharging one not`() {
        battery(level = 100, scale = 100, status = BatteryManager.BATTERY_STATUS_FULL, tenthsOfDegree = 250)
        assertEquals(true, AndroidDeviceInfo.read(context).charging)
        battery(level = 40, scale = 100, status = BatteryManager.BATTERY_STATUS_DISCHARGING, tenthsOfDegree = 250)
        assertEquals(false, AndroidDeviceInfo.read(context).charging)
        battery(level = 40, scale = 100, status = BatteryManager.BATTERY_STATUS_UNKNOWN, tenthsOfDegree = 250)
        assertNull(AndroidDeviceInfo.read(context).charging)
    }

    @Test
    fun `without a battery broadcast its fields are null, never zero`() {
        val device = AndroidDeviceInfo.read(context)
        assertNull(device.battery)
        assertNull(device.charging)
        assertNull(device.temperature)
    }

    @Test
    fun `the radio is the active network's transport`() {
        val expected = mapOf(
            NetworkCapabilities.TRANSPORT_WIFI to "wifi",
            NetworkCapabilities.TRANSPORT_CELLULAR to "cellular",
            NetworkCapabilities.TRANSPORT_ETHERNET to "ethernet",
            NetworkCapabilities.TRANSPORT_BLUETOOTH to "other",
        )
        for ((transport, radio) in expected) {
            activeTransport(transport)
            assertEquals(radio, AndroidDeviceInfo.read(context).radio)
        }
    }
}
