"""Device discovery and health: what each driver's tool (adb, libimobiledevice) reports
about the phones on this runner host, parsed from the tools' exact output formats, and
the readiness gate that holds a device back from work."""
