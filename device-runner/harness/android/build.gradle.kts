// Versions pinned here and in app/build.gradle.kts; the core's own versions are in core/pom.xml.
plugins {
    id("com.android.application") version "8.7.3" apply false
    id("org.jetbrains.kotlin.android") version "2.4.21" apply false
}
