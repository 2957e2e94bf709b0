// The LatencyLab Android harness: the measurement core (core/, a Maven module that also
// builds and tests on any JVM) compiled into a thin instrumentation-test app (app/).
// Built on a lab machine with the Android SDK and Gradle (fastlane android build_harness);
// it cannot be built where no Gradle distribution or Android SDK is reachable.
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
}

dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}

rootProject.name = "latencylab-harness"
include(":app")
