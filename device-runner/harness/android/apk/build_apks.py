#!/usr/bin/env python3
"""Builds the harness's two APKs without Gradle: target/apk/app.apk (dev.latencylab.harness:
the core, the Android shell, the libraries) and target/apk/test.apk (dev.latencylab.harness.test:
the instrumentation the runner starts). Maven runs it in the package phase (pom.xml), after it
compiled the Kotlin and laid out the jars; standard library only.

Each step uses the real tool:
  D8 (R8's dexer, --min-api = minSdk)   class files -> dex, Java 8+ language features desugared
                                        and JDK methods Android lacks backported for minSdk
  R8's tracereferences --check          the API check: every class, method and field our code
                                        names must exist in Android <minSdk>'s framework
                                        (android-all), the JDK's java.* (android-all has no
                                        libcore) or the libraries packaged
  aapt package                          manifest + resources against Android's framework-res.apk
  zipalign -p 4, apksigner sign         with an RSA key generated for this build (keytool);
                                        never committed, never reused
The versions, minSdk and targetSdk are read from ../app/build.gradle.kts, as the runner reads
the version it expects on a phone (drivers/android_harness.py).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
APP = HERE.parent / "app"
GRADLE_FILE = APP / "build.gradle.kts"
PACKAGE = "dev.latencylab.harness"
TEST_PACKAGE = f"{PACKAGE}.test"
# The test APK holds this package and nothing else: it runs in the app's process and uses the app's classes.
INSTRUMENTATION_DIR = "dev/latencylab/harness/instrumentation/"
INSTRUMENTATION_CLASS = "dev.latencylab.harness.instrumentation.BenchInstrumentation"
# The core's JVM-only package: its command line and the kwik/flupke HTTP/3 stand-in (java.net.http).
JVM_ONLY_DIR = "dev/latencylab/harness/jvm/"
ENGINES_META_DATA = "dev.latencylab.harness.engines"
ANDROID_NS = "http://schemas.android.com/apk/res/android"
# Debian's android-framework-res (Android 10, API 29): what `aapt -I` links the manifest's attributes against.
FRAMEWORK_RES = (
    Path("/usr/share/android-framework-res/framework-res.apk"),
    Path("/usr/lib/android-sdk/platforms/android-29/android.jar"),
)
# Jar entries that describe the jar itself rather than the code (AGP leaves them out of APKs too).
_JAR_OWN = re.compile(
    r"^(META-INF/(MANIFEST\.MF|INDEX\.LIST|DEPENDENCIES|[^/]+\.(SF|RSA|DSA|EC)|maven/.*|versions/.*)"
    r"|(.*/)?module-info\.class)$"
)


def log(message: str) -> None:
    print(f"build_apks: {message}", flush=True)


def run(label: str, command: list[str | Path]) -> str:
    """Runs a tool; its output is shown only when it fails (then the build fails with it)."""
    started = time.monotonic()
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"build_apks: {label} failed (exit {done.returncode}): {' '.join(map(str, command))[:600]}")
    log(f"{label}: {time.monotonic() - started:.1f} s")
    return done.stdout + done.stderr


def gradle_values() -> dict[str, str]:
    """versionCode, versionName, minSdk, targetSdk from the Gradle build: one place says them."""
    text = GRADLE_FILE.read_text()
    values = {}
    for key, pattern in {
        "versionCode": r"^\s*versionCode\s*=\s*(\d+)",
        "versionName": r'^\s*versionName\s*=\s*"([^"]+)"',
        "minSdk": r"^\s*minSdk\s*=\s*(\d+)",
        "targetSdk": r"^\s*targetSdk\s*=\s*(\d+)",
    }.items():
        match = re.search(pattern, text, re.MULTILINE)
        if match is None:
            raise SystemExit(f"build_apks: {GRADLE_FILE} names no {key}")
        values[key] = match.group(1)
    return values


def dexed_libraries(d8: list[str | Path], r8: Path, libraries: list[Path]) -> Path:
    """The libraries as dex, made once per set of libraries, D8 and minSdk and
    kept in the user's cache (as Maven keeps the jars, and as the Gradle plugin keeps dexed
    libraries): dexing them (~9 MB of jars: grpc, Guava, Jackson, OkHttp, kotlin-stdlib…) was
    about 80 % of this build's CPU. Each build dexes our own code."""
    digest = hashlib.sha256(("release dex files " + " ".join(map(str, d8[3:]))).encode())
    for path in (r8, *libraries):
        digest.update(path.name.encode() + path.read_bytes())
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "latencylab" / "d8-libraries"
    dexed = cache / f"{digest.hexdigest()[:32]}.zip"
    if dexed.is_file():
        log(f"libraries already dexed: {dexed}")
        return dexed
    cache.mkdir(parents=True, exist_ok=True)
    partial = dexed.with_suffix(f".{os.getpid()}.partial.zip")
    run("d8 (libraries, once)", [*d8, "--output", partial, *libraries])
    partial.replace(dexed)  # atomic: a build beside this one never reads half of it
    return dexed


def framework_res() -> Path:
    for path in FRAMEWORK_RES:
        if path.is_file():
            return path
    raise SystemExit(
        "build_apks: no Android framework-res.apk "
        "(Debian package android-framework-res; infra/bin/bootstrap.sh installs it)"
    )


def jar_of(entries: dict[str, bytes], path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as jar:
        for name in sorted(entries):
            jar.writestr(name, entries[name])
    return path


def split_classes(core_jar: Path, classes_dir: Path) -> tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes]]:
    """(the app's classes, the instrumentation's classes, the core's Java resources)."""
    app: dict[str, bytes] = {}
    instrumentation: dict[str, bytes] = {}
    resources: dict[str, bytes] = {}
    with zipfile.ZipFile(core_jar) as jar:
        for name in jar.namelist():
            if name.endswith("/") or name.startswith(JVM_ONLY_DIR) or _JAR_OWN.match(name):
                continue
            (app if name.endswith(".class") else resources)[name] = jar.read(name)
    for path in sorted(classes_dir.rglob("*.class")):
        name = path.relative_to(classes_dir).as_posix()
        (instrumentation if name.startswith(INSTRUMENTATION_DIR) else app)[name] = path.read_bytes()
    if not any(name.startswith(INSTRUMENTATION_DIR) for name in instrumentation):
        raise SystemExit(f"build_apks: no instrumentation classes under {classes_dir / INSTRUMENTATION_DIR}")
    return app, instrumentation, resources


def java_resources(core_resources: dict[str, bytes], libraries: list[Path]) -> dict[str, bytes]:
    """The non-class files the code reads at run time (the contract's schemas, networknt's
    messages, ServiceLoader registrations), as AGP merges them: a service file is the union of
    every jar's lines, any other file the first jar's."""
    merged = dict(core_resources)
    services: dict[str, list[str]] = {}
    for library in libraries:
        with zipfile.ZipFile(library) as jar:
            for name in jar.namelist():
                if name.endswith("/") or name.endswith(".class") or _JAR_OWN.match(name):
                    continue
                if name.startswith("META-INF/services/"):
                    lines = services.setdefault(name, [])
                    for line in jar.read(name).decode().splitlines():
                        if line.strip() and not line.strip().startswith("#") and line.strip() not in lines:
                            lines.append(line.strip())
                else:
                    merged.setdefault(name, jar.read(name))
    for name, lines in services.items():
        merged[name] = ("\n".join(lines) + "\n").encode()
    return merged


def engines_summary(libraries: list[Path]) -> str:
    """What the manifest says this build measures with, from the jars it packages."""

    def version(prefix: str) -> str:
        found = [
            lib.stem[len(prefix) :]
            for lib in libraries
            if lib.stem.startswith(prefix) and lib.stem[len(prefix) :][:1].isdigit()
        ]
        return found[0] if found else "?"

    return (
        f"h1c,h1,h2: okhttp {version('okhttp-jvm-')}; grpc: grpc-java {version('grpc-okhttp-')} (grpc-okhttp); "
        "h3: none (built without Gradle: Cronet is not on Maven Central)"
    )


def app_manifest(values: dict[str, str], engines: str, out: Path) -> Path:
    """../app/src/main/AndroidManifest.xml with what the Gradle plugin would merge into it:
    the package, the versions, <uses-sdk>; and the engines this build holds."""
    ET.register_namespace("android", ANDROID_NS)
    tree = ET.parse(APP / "src" / "main" / "AndroidManifest.xml")  # noqa: S314 (the repository's own manifest)
    manifest = tree.getroot()
    manifest.set("package", PACKAGE)
    manifest.set(f"{{{ANDROID_NS}}}versionCode", values["versionCode"])
    manifest.set(f"{{{ANDROID_NS}}}versionName", values["versionName"])
    manifest.insert(
        0,
        ET.Element(
            "uses-sdk",
            {
                f"{{{ANDROID_NS}}}minSdkVersion": values["minSdk"],
                f"{{{ANDROID_NS}}}targetSdkVersion": values["targetSdk"],
            },
        ),
    )
    application = manifest.find("application")
    if application is None:
        raise SystemExit("build_apks: the app's manifest has no <application>")
    ET.SubElement(
        application, "meta-data", {f"{{{ANDROID_NS}}}name": ENGINES_META_DATA, f"{{{ANDROID_NS}}}value": engines}
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    tree.write(out, encoding="utf-8", xml_declaration=True)
    return out


def test_manifest(values: dict[str, str], out: Path) -> Path:
    """The instrumentation APK's manifest, as the Gradle plugin generates it for androidTest."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"""<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="{ANDROID_NS}" package="{TEST_PACKAGE}"
    android:versionCode="{values["versionCode"]}" android:versionName="{values["versionName"]}">
    <uses-sdk android:minSdkVersion="{values["minSdk"]}" android:targetSdkVersion="{values["targetSdk"]}" />
    <application android:label="LatencyLab harness instrumentation" />
    <instrumentation android:name="{INSTRUMENTATION_CLASS}" android:targetPackage="{PACKAGE}"
        android:label="LatencyLab bench" />
</manifest>
""")
    return out


def network_security_config(res: Path) -> Path:
    """As app/build.gradle.kts generates it without a target CA: OkHttp and gRPC arms trust the
    job's ca_bundle_pem themselves; cleartext for h1c arms. (Only Cronet needed the CA built in.)"""
    xml = res / "xml" / "network_security_config.xml"
    xml.parent.mkdir(parents=True, exist_ok=True)
    xml.write_text("""<?xml version="1.0" encoding="utf-8"?>
<network-security-config>
    <base-config cleartextTrafficPermitted="true">
        <trust-anchors>
            <certificates src="system" />
        </trust-anchors>
    </base-config>
</network-security-config>
""")
    return res


def with_code(
    resources_apk: Path, dex_dir: Path, java_files: dict[str, bytes], out: Path, library_dex: Path | None = None
) -> Path:
    """aapt's output plus the dex files (stored: ART maps them from the APK on API 28+) — ours
    as classes.dex, the libraries' after it — and the Java resources."""
    with zipfile.ZipFile(resources_apk) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as apk:
        for info in source.infolist():
            # Android 11+ refuses to install an app targeting API 30+ whose resources.arsc is
            # compressed (INSTALL_PARSE_FAILED_RESOURCES_ARSC_COMPRESSED); zipalign then aligns it.
            if info.filename == "resources.arsc":
                info.compress_type = zipfile.ZIP_STORED
            apk.writestr(info, source.read(info.filename))
        ours = sorted(dex_dir.glob("classes*.dex"), key=lambda p: int(p.stem[len("classes") :] or 1))
        for number, dex in enumerate(ours, start=1):
            apk.write(dex, dex_name(number), compress_type=zipfile.ZIP_STORED)
        if library_dex is not None:
            with zipfile.ZipFile(library_dex) as libraries:
                names = sorted(
                    (n for n in libraries.namelist() if n.endswith(".dex")),
                    key=lambda n: int(n[len("classes") : -4] or 1),
                )
                for number, name in enumerate(names, start=len(ours) + 1):
                    apk.writestr(
                        zipfile.ZipInfo(dex_name(number), date_time=(1980, 1, 1, 0, 0, 0)),
                        libraries.read(name),
                        compress_type=zipfile.ZIP_STORED,
                    )
        for name in sorted(java_files):
            apk.writestr(name, java_files[name])
    return out


def dex_name(number: int) -> str:
    return "classes.dex" if number == 1 else f"classes{number}.dex"


def sign(tools: dict[str, str], unsigned: Path, keystore: Path, password: str, min_sdk: str, out: Path) -> Path:
    aligned = unsigned.with_suffix(".aligned.apk")
    run(f"zipalign {out.name}", [tools["zipalign"], "-f", "-p", "4", unsigned, aligned])
    out.parent.mkdir(parents=True, exist_ok=True)
    run(
        f"apksigner sign {out.name}",
        [
            tools["apksigner"],
            "sign",
            "--ks",
            keystore,
            "--ks-key-alias",
            "harness",
            "--ks-pass",
            f"pass:{password}",
            "--key-pass",
            f"pass:{password}",
            "--min-sdk-version",
            min_sdk,
            "--out",
            out,
            aligned,
        ],
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=Path, required=True, help="the Maven module's target directory")
    parser.add_argument(
        "--core-jar", type=Path, required=True, help="the core's own classes (original-harness-core.jar)"
    )
    args = parser.parse_args()
    target: Path = args.target.resolve()
    tools = {name: shutil.which(name) for name in ("aapt", "zipalign", "apksigner", "keytool", "java")}
    missing = [name for name, path in tools.items() if path is None]
    if missing:
        raise SystemExit(f"build_apks: missing {', '.join(missing)} (infra/bin/bootstrap.sh installs them)")
    values = gradle_values()
    r8 = target / "apk-tools" / "r8.jar"
    android = target / "apk-tools" / "android-all.jar"  # Android <minSdk>'s framework (pom.xml android.all.version)
    libraries = sorted((target / "apk-libs").glob("*.jar"))
    stage = target / "apk-build"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)

    app_classes, instrumentation_classes, core_resources = split_classes(args.core_jar, target / "classes")
    ours = jar_of(app_classes, stage / "ours.jar")
    instrumentation = jar_of(instrumentation_classes, stage / "instrumentation.jar")
    libs = [arg for lib in libraries for arg in ("--classpath", lib)]

    d8 = ["java", "-cp", r8, "com.android.tools.r8.D8", "--release", "--min-api", values["minSdk"], "--lib", android]
    for name in ("app-dex", "test-dex"):
        (stage / name).mkdir()
    # Ours and the libraries as dex files of their own, side by side in the APK (classes.dex, then
    # classes2.dex…), as the Gradle plugin's debug builds do: API 21+ loads every classesN.dex.
    run("d8 (ours)", [*d8, *libs, "--output", stage / "app-dex", ours])
    library_dex = dexed_libraries(d8, r8, libraries)
    run("d8 (instrumentation)", [*d8, *libs, "--classpath", ours, "--output", stage / "test-dex", instrumentation])
    # android-all holds Android's framework but not its libcore (Robolectric runs it on the host's
    # java.*), so java.* and javax.* references resolve against this JDK: checked for existence,
    # not for Android 10 (harness/README.md says so).
    jdk = Path(os.path.realpath(tools["java"])).parents[1]
    run(
        "tracereferences --check",
        [
            "java",
            "-cp",
            r8,
            "com.android.tools.r8.tracereferences.TraceReferences",
            "--check",
            "--lib",
            android,
            "--lib",
            jdk,
            *[arg for lib in libraries for arg in ("--lib", lib)],
            "--source",
            ours,
            "--source",
            instrumentation,
        ],
    )
    log(
        f"API check passed: every class, method and field our code refers to exists in Android {values['minSdk']}'s "
        "framework, the JDK's java.* or a packaged library"
    )

    framework = framework_res()
    engines = engines_summary(libraries)
    app_res = network_security_config(stage / "app-res")
    run(
        "aapt package (app)",
        [
            tools["aapt"],
            "package",
            "-f",
            "-M",
            app_manifest(values, engines, stage / "app-manifest" / "AndroidManifest.xml"),
            "-S",
            app_res,
            "-I",
            framework,
            "-F",
            stage / "app.ap_",
        ],
    )
    run(
        "aapt package (test)",
        [
            tools["aapt"],
            "package",
            "-f",
            "-M",
            test_manifest(values, stage / "test-manifest" / "AndroidManifest.xml"),
            "-I",
            framework,
            "-F",
            stage / "test.ap_",
        ],
    )
    app_unsigned = with_code(
        stage / "app.ap_",
        stage / "app-dex",
        java_resources(core_resources, libraries),
        stage / "app.unsigned.apk",
        library_dex,
    )
    test_unsigned = with_code(stage / "test.ap_", stage / "test-dex", {}, stage / "test.unsigned.apk")

    # One key for both: Android starts an instrumentation only when its APK and the target
    # app are signed by the same certificate. Made here, kept only in target/ (never committed).
    password = secrets.token_hex(16)
    keystore = stage / "harness.keystore"
    run(
        "keytool -genkeypair",
        [
            tools["keytool"],
            "-genkeypair",
            "-keystore",
            keystore,
            "-storetype",
            "PKCS12",
            "-storepass",
            password,
            "-keypass",
            password,
            "-alias",
            "harness",
            "-keyalg",
            "RSA",
            "-keysize",
            "2048",
            "-validity",
            "3650",
            "-dname",
            "CN=LatencyLab harness (built without Gradle)",
        ],
    )
    out = target / "apk"
    shutil.rmtree(out, ignore_errors=True)
    app_apk = sign(tools, app_unsigned, keystore, password, values["minSdk"], out / "app.apk")
    test_apk = sign(tools, test_unsigned, keystore, password, values["minSdk"], out / "test.apk")
    keystore.unlink()
    with zipfile.ZipFile(app_apk) as apk:
        dex_files = sorted(n for n in apk.namelist() if n.endswith(".dex"))
    log(
        f"{app_apk} ({app_apk.stat().st_size:,} bytes, {', '.join(dex_files)}), "
        f"{test_apk} ({test_apk.stat().st_size:,} bytes); {PACKAGE} {values['versionName']} ({values['versionCode']}), "
        f"minSdk {values['minSdk']}, targetSdk {values['targetSdk']}"
    )
    log(f"engines: {engines}")


if __name__ == "__main__":
    main()
