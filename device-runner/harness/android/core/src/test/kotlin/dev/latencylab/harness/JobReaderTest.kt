package dev.latencylab.harness

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ArrayNode
import com.fasterxml.jackson.databind.node.ObjectNode
import dev.latencylab.harness.job.ConnectionPolicy
import dev.latencylab.harness.job.InvalidJobException
import dev.latencylab.harness.job.Job
import dev.latencylab.harness.job.JobReader
import dev.latencylab.harness.job.Origin
import dev.latencylab.harness.job.Protocol
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.io.File

class JobReaderTest {
    private val reader = JobReader(Repo.schemas)
    private val mapper = ObjectMapper()

    private fun exampleJob(): ObjectNode = mapper.readTree(File(Repo.examples, "job-series-h1-h2.json")) as ObjectNode

    @Test
    fun `reads arms and requests with their context`() {
        val job = reader.read(File(Repo.examples, "job-api-grpc-cold.json"))
        assertEquals("run-api-1", job.runId)
        assertEquals(2, job.attempt)
        assertEquals(10_000, job.timeoutMs)
        val grpc = job.arms[0]
        assertEquals(Protocol.GRPC, grpc.protocol)
        assertEquals(ConnectionPolicy.WARM, grpc.connection)
        assertEquals(Origin("https", "198.19.0.1", 8443), grpc.origin)
        assertEquals("target.latencylab.test", grpc.tlsName)
        val first = job.requests[0]
        assertEquals(800, first.bodyBytes)
        assertTrue(first.newConnection)
        assertEquals("A", first.part)
        assertEquals(mapOf("x-latencylab-run" to "run-api-1"), first.headers)
        assertEquals(25.0, job.requests[2].serverDelayMs)
        assertNull(job.requests[2].part)
    }

    @Test
    fun `a schema violation names the field`() {
        val job = exampleJob()
        (job["requests"][3] as ObjectNode).put("seq", -4)
        val e = assertThrows<InvalidJobException> { reader.fromTree(job) }
        assertTrue("requests[3].seq" in e.message!!, e.message)
    }

    @Test
    fun `a request's own origin and concurrency group are read, with the job's max_parallel`() {
        val job = reader.read(File(Repo.examples, "job-requests-groups-origin.json"))
        assertEquals(4, job.maxParallel)
        assertEquals(Origin("https", "cdn.example.com", 443), job.requests[4].origin)
        assertNull(job.requests[3].origin, "no origin: the arm's")
        assertEquals(listOf(null, null, 0, 0, 0, 1, 1, 1), job.requests.map { it.group })
        assertEquals(201, job.requests[3].expectStatus)
        assertEquals("{\"dry_run\":true}", String(job.requests[3].body!!))
        val arm = job.arms[0]
        val elsewhere = arm.at(job.requests[4].origin!!)
        assertEquals("cdn.example.com", elsewhere.tlsName, "another origin is checked against its own host")
        assertEquals(arm.protocol to arm.connection, elsewhere.protocol to elsewhere.connection)
        assertEquals(Job.DEFAULT_MAX_PARALLEL, reader.fromTree(exampleJob()).maxParallel)
    }

    @Test
    fun `a request origin the schema lets through but no socket can reach is refused naming the field`() {
        val job = exampleJob()
        ((job["requests"] as ArrayNode)[2] as ObjectNode).put("origin", "https://cdn.example.com:70000")
        assertEquals("$.requests[2].origin: 'https://cdn.example.com:70000' is not scheme://host[:port] with a port in 1..65535",
            assertThrows<InvalidJobException> { reader.fromTree(job) }.message)
    }

    @Test
    fun `a concurrency group is the consecutive requests of one arm and phase with the same group`() {
        val job = reader.read(File(Repo.examples, "job-requests-groups-origin.json"))
        assertEquals(listOf(0), BlockRunner.groupAt(job.requests, 0).map { it.seq })
        assertEquals(listOf(2, 3, 4), BlockRunner.groupAt(job.requests, 2).map { it.seq })
        assertEquals(listOf(5, 6, 7), BlockRunner.groupAt(job.requests, 5).map { it.seq })
    }

    @Test
    fun `informational fields and nulls are read`() {
        val named = exampleJob()
        ((named["requests"] as ArrayNode)[2] as ObjectNode).put("name", "login").putNull("expect_status")
        assertEquals(8, reader.fromTree(named).requests.size)  // informational fields and nulls are fine
    }

    @Test
    fun `a customer's own body and expected status are read from the job`() {
        val job = exampleJob()
        ((job["requests"] as ArrayNode)[2] as ObjectNode).put("body_b64", "AAH/").put("expect_status", 201)
        val request = reader.fromTree(job).requests[2]
        assertEquals(listOf<Byte>(0, 1, -1), request.body!!.toList())
        assertEquals(201, request.expectStatus)
        val broken = exampleJob()
        ((broken["requests"] as ArrayNode)[2] as ObjectNode).put("body_b64", "A")
        assertTrue("body_b64 is not base64" in assertThrows<InvalidJobException> { reader.fromTree(broken) }.message!!)
    }

    @Test
    fun `a request naming an unknown arm is refused with the known labels`() {
        val job = exampleJob()
        (job["requests"][2] as ObjectNode).put("arm", "h3")
        val e = assertThrows<InvalidJobException> { reader.fromTree(job) }
        assertEquals("$.requests[2].arm: 'h3' is not an arm label; known: h2, https-h1", e.message)
    }

    @Test
    fun `duplicate seq and duplicate arm labels are refused`() {
        val seqJob = exampleJob()
        (seqJob["requests"][5] as ObjectNode).put("seq", 0)
        assertEquals("$.requests[5].seq: 0 appears more than once", assertThrows<InvalidJobException> { reader.fromTree(seqJob) }.message)

        val armJob = exampleJob()
        (armJob["arms"][1] as ObjectNode).put("label", "https-h1")
        assertEquals("$.arms[1].label: 'https-h1' is used by more than one arm",
            assertThrows<InvalidJobException> { reader.fromTree(armJob) }.message)
    }

    @Test
    fun `requests come out in seq order whatever order the file lists them in`() {
        val job = exampleJob()
        val requests = job["requests"] as ArrayNode
        val reversed = requests.toList().reversed()
        requests.removeAll()
        reversed.forEach { requests.add(it) }
        val read = reader.fromTree(job)
        assertEquals(read.requests.map { it.seq }.sorted(), read.requests.map { it.seq })
    }

    @Test
    fun `not JSON, empty, duplicate keys and missing files are clear errors`(@TempDir dir: File) {
        val broken = File(dir, "broken.json").apply { writeText("{\"contract\": \"latencylab.job/v1\",\n \"run_id\": }") }
        val e = assertThrows<InvalidJobException> { reader.read(broken) }
        assertTrue(e.message!!.startsWith("job document is not valid JSON (line 2"), e.message)

        val empty = File(dir, "empty.json").apply { writeText("") }
        assertThrows<InvalidJobException> { reader.read(empty) }

        val dup = File(dir, "dup.json").apply { writeText("{\"block\": 1, \"block\": 2}") }
        assertTrue("Duplicate field 'block'" in assertThrows<InvalidJobException> { reader.read(dup) }.message!!)

        val missing = File(dir, "nope.json")
        assertEquals("job file $missing does not exist or is not a file", assertThrows<InvalidJobException> { reader.read(missing) }.message)
    }

    @Test
    fun `origins parse host names, IPv4 and bracketed IPv6 with default ports`() {
        assertEquals(Origin("https", "::1", 443), Origin.parse("https://[::1]"))
        assertEquals(Origin("http", "target.latencylab.test", 8080), Origin.parse("http://target.latencylab.test:8080"))
        assertTrue(Origin.parse("https://198.19.0.1:8443")!!.hostIsIpLiteral)
        assertFalse(Origin.parse("https://localhost:8443")!!.hostIsIpLiteral)
        assertNull(Origin.parse("https://host:70000"))
        assertNull(Origin.parse("https://a:b:c"))
    }

    @Test
    fun `a 20,000-request job (the contract's maximum) is read and validated whole`(@TempDir dir: File) {
        val file = File(dir, "big.json")
        // Written with the streaming generator, as a driver would; a few MB.
        mapper.factory.createGenerator(file, com.fasterxml.jackson.core.JsonEncoding.UTF8).use { g ->
            g.writeStartObject()
            g.writeStringField("contract", "latencylab.job/v1")
            g.writeStringField("run_id", "big")
            g.writeNumberField("block", 0)
            g.writeNumberField("attempt", 1)
            g.writeNumberField("timeout_ms", 5000)
            g.writeArrayFieldStart("arms")
            for (label in listOf("a", "b")) {
                g.writeStartObject()
                g.writeStringField("label", label)
                g.writeStringField("protocol", "h2")
                g.writeStringField("connection", "warm")
                g.writeStringField("origin", "https://198.19.0.1:8443")
                g.writeEndObject()
            }
            g.writeEndArray()
            g.writeArrayFieldStart("requests")
            for (seq in 0 until 20_000) {
                g.writeStartObject()
                g.writeNumberField("seq", seq)
                g.writeStringField("arm", if (seq % 2 == 0) "a" else "b")
                g.writeStringField("phase", "measure")
                g.writeStringField("op", "file")
                g.writeStringField("method", "GET")
                g.writeStringField("path", "/files/mid-%02d".format(seq % 24 + 1))
                g.writeNumberField("period", 24)
                g.writeNumberField("repetition", seq / 24)
                g.writeNumberField("step", seq % 24)
                g.writeEndObject()
            }
            g.writeEndArray()
            g.writeEndObject()
        }
        val job = reader.read(file)
        assertEquals(20_000, job.requests.size)
        assertEquals((0 until 20_000).toList(), job.requests.map { it.seq })
        assertEquals("/files/mid-24", job.requests[23].path)

        // One more request is over the contract's limit.
        val tooMany = mapper.readTree(file) as ObjectNode
        (tooMany["requests"] as ArrayNode).add((tooMany["requests"][0] as ObjectNode).deepCopy().put("seq", 20_000))
        assertTrue("requests" in assertThrows<InvalidJobException> { reader.fromTree(tooMany) }.message!!)
    }
}
