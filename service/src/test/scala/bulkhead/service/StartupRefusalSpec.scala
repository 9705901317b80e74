package bulkhead.service

import bulkhead.service.testkit.{Scratch, ServiceProcess}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow


/**
 * `bulkhead.service.Main` started for real on a heap or a descriptor limit short of what its settings need: it exits 2
 * at once with one line naming the figures and the settings to lower, never a stack trace; within them it starts.
 */
@Slow
class StartupRefusalSpec extends AnyFlatSpec with Matchers:
  private val dir = Scratch.dir("bulkhead-refusal")
  // Nothing past the checks is reached in a refusal; a start that passes them needs no reachable Redis.
  private val noRedis = Seq("--redis-uri", "redis://127.0.0.1:1")

  private def refused(name: String, args: Seq[String], jvmOptions: Seq[String] = Nil,
      openFiles: Option[Int] = None): String =
    val service = ServiceProcess.start(name, dir, args, jvmOptions, openFiles = openFiles)
    try
      withClue(service.logTail)(service.exitCode(30) shouldBe Some(2))
      val out = service.output
      out should not include "Exception"
      out should not include "\tat "
      out
    finally service.kill()

  "serve" should "refuse a heap short of the heads in progress, the connections and its working set with the shipped " +
    "settings, naming them" in {
    val out = refused("small-heap", noRedis, jvmOptions = Seq("-Xmx256m"))
    out should include("heap is 256 MiB")
    out should include("bulkhead.service.server.max-head-bytes-in-progress=268435456")
    out should include("connection state (16384 x 24 KiB)")
    out should include("-Xmx1169m")
    // One line of its own; the JDK's warnings about Unsafe (this test JVM runs without the launcher's flags) aside.
    out.linesIterator.filter(l => l.trim.nonEmpty && !l.startsWith("WARNING:")).toSeq should have size 1
  }

  it should "start on that heap once max-connections fits it" in {
    // 500 x 64 KiB of heads x 2.5 + 500 x 24 KiB + 1,524 x 1 KiB read ahead + 128 MiB: 220 MiB.
    val service = ServiceProcess.start("fitting-heap", dir, noRedis ++ Seq("--max-connections", "500"),
      Seq("-Xmx256m"))
    try ServiceProcess.awaitReady(service)
    finally service.stop()
  }

  it should "refuse a cluster node on a non-loopback address without TLS, naming the host and the keys to set" in {
    val out = refused("cluster-off-loopback", noRedis ++ Seq("--cluster-port", "0", "--cluster-host", "10.0.0.2"))
    out should include("'10.0.0.2' is not a loopback address")
    out should include("bulkhead.cluster.tls.key-store")
  }

  it should "refuse a descriptor limit short of the connections it serves, refuses and opens" in {
    val out = refused("few-files", noRedis, openFiles = Some(4096))
    out should include("may open 4096 files (ulimit -n)")
    out should include("SOAP connections")
    out should include("Redis connections")
  }
