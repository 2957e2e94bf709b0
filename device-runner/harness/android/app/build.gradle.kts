// The harness app. It has no UI: its instrumentation (androidTest: BenchInstrumentation, a plain
// android.app.Instrumentation) reads the job the runner pushed, runs the measurement core and
// writes the result. The same sources also build without Gradle, without Cronet (../apk).
//
// The core's sources are compiled in directly (../core/src/main/kotlin) except its jvm/
// package (the JVM command line and the kwik/flupke HTTP/3 stand-in, which need java.net.http);
// on the phone Cronet is the HTTP/3 engine (CronetHttp3Engine.kt).
plugins {
    id("com.android.application")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "dev.latencylab.harness"
    compileSdk = 35

    defaultConfig {
        applicationId = "dev.latencylab.harness"
        // 29: SSLSocket ALPN through public API (grpc-okhttp), externalMediaDirs readable by the shell.
        minSdk = 29
        targetSdk = 35
        versionCode = 1
        versionName = "0.1.0"
        // The component the runner starts: dev.latencylab.harness.test/<this class>.
        testInstrumentationRunner = "dev.latencylab.harness.instrumentation.BenchInstrumentation"
    }

    buildTypes {
        debug { isMinifyEnabled = false }
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }

    sourceSets["main"].apply {
        kotlin.srcDir(layout.buildDirectory.dir("generated/core-sources"))
        res.srcDir(layout.buildDirectory.dir("generated/network-security-res"))
        // The contract's schemas, bundled exactly as core/pom.xml bundles them (see copyContractSchemas).
        resources.srcDir(layout.buildDirectory.dir("generated/contract-resources"))
    }

    packaging {
        resources.excludes += setOf("META-INF/DEPENDENCIES", "META-INF/INDEX.LIST", "META-INF/versions/9/module-info.class")
    }
}

kotlin {
    jvmToolchain(17)
}

// The core's sources without its JVM-only package.
val syncCoreSources by tasks.registering(Sync::class) {
    from(rootProject.file("core/src/main/kotlin")) { exclude("dev/latencylab/harness/jvm/**") }
    into(layout.buildDirectory.dir("generated/core-sources"))
}
// One source of truth: device-runner/contract/latencylab_contract/*.schema.json → dev/latencylab/harness/contract/ on the classpath.
val copyContractSchemas by tasks.registering(Copy::class) {
    from(rootProject.file("../../contract/latencylab_contract")) { include("*.schema.json") }
    into(layout.buildDirectory.dir("generated/contract-resources/dev/latencylab/harness/contract"))
}

// OkHttp and grpc arms trust the job's ca_bundle_pem themselves (TrustMaterial). Cronet (h3)
// verifies through the platform and has no API for extra anchors, so the reference target's
// CA is built into the app: `-PlatencylabTargetCa=/etc/latencylab/tls/ca.pem`, or
// `latencylabTargetCa=…` in ~/.gradle/gradle.properties on the lab machine. Without it, h3
// arms to a privately signed target fail as `tls`.
// Cleartext is allowed because h1c arms are cleartext HTTP/1.1 by design.
val targetCa = providers.gradleProperty("latencylabTargetCa")
val generateNetworkSecurityConfig by tasks.registering {
    val outDir = layout.buildDirectory.dir("generated/network-security-res")
    val caPath = targetCa.orNull
    inputs.property("targetCa", caPath ?: "")
    if (caPath != null) inputs.file(caPath)
    outputs.dir(outDir)
    doLast {
        val res = outDir.get().asFile
        res.deleteRecursively()
        File(res, "xml").mkdirs()
        val extra = if (caPath != null) {
            File(res, "raw").mkdirs()
            File(caPath).copyTo(File(res, "raw/latencylab_target_ca.pem"))
            "\n            <certificates src=\"@raw/latencylab_target_ca\" />"
        } else ""
        File(res, "xml/network_security_config.xml").writeText(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
                <base-config cleartextTrafficPermitted="true">
                    <trust-anchors>
                        <certificates src="system" />$extra
                    </trust-anchors>
                </base-config>
            </network-security-config>
            """.trimIndent() + "\n",
        )
    }
}

tasks.named("preBuild") { dependsOn(syncCoreSources, copyContractSchemas, generateNetworkSecurityConfig) }

dependencies {
    // Same libraries and versions as core/pom.xml (Gradle resolves OkHttp 5's multiplatform artifact itself).
    implementation("com.squareup.okhttp3:okhttp:5.5.1")
    implementation("io.grpc:grpc-okhttp:1.82.2")
    implementation("io.grpc:grpc-api:1.82.2")
    implementation("io.grpc:grpc-core:1.82.2")
    implementation("com.fasterxml.jackson.core:jackson-databind:2.18.3")
    implementation("com.networknt:json-schema-validator:1.5.9")
    implementation("org.slf4j:slf4j-nop:2.0.17")
    // HTTP/3 on the phone: Chromium's network stack, embedded (no Play Services needed).
    implementation("org.chromium.net:cronet-embedded:119.6045.31")
    // No androidTest libraries: BenchInstrumentation is a plain android.app.Instrumentation.
}
