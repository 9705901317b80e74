package bulkhead.service

import bulkhead.service.testkit.{HeldHeads, HttpProbe, Scratch, ServiceProcess}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow


/**
 * `bulkhead.service.Main` run as `serve` runs it (-XX:+ExitOnOutOfMemoryError) on a heap far short of its settings,
 * started anyway with `server.refuse-small-heap = false`, under a flood of connections that each hold an unfinished
 * request head just under max-head-bytes in headers Pekko takes (the lab's large-heads case): the heap runs out, and
 * the process exits by itself, naming the cause, rather than living on with a heap it cannot free or threads lost to
 * the error. (Heads of one 60 KB header hold nothing: Pekko answers 431 as a header value passes 8 KiB.)
 */
@Slow
class HeapExhaustionSpec extends AnyFlatSpec with Matchers:
  private val dir = Scratch.dir("bulkhead-heap-exhaustion")

  "serve" should "start on a heap short of its settings with refuse-small-heap=false, saying so, and exit at the " +
    "OutOfMemoryError clients cause, naming it, instead of hanging" in {
    val service = ServiceProcess.start("flooded", dir, Seq("--redis-uri", "redis://127.0.0.1:1",
      "--set", "bulkhead.service.server.refuse-small-heap=false"), jvmOptions = Seq("-Xmx64m"))
    var heads: HeldHeads = null
    try
      ServiceProcess.awaitReady(service)
      val warning = service.output.linesIterator.filter(_.contains("starting anyway")).toSeq
      warning should have size 1
      warning.head should (include("WARNING") and include("heap is 64 MiB") and include("-Xmx1169m") and
        include("max-head-bytes-in-progress=268435456"))
      HttpProbe.get(service.url("/health"), 10).status shouldBe 200

      // 64 KiB heads at ~150 KB of heap each: a few hundred fill 64 MiB, far below the heads in progress the settings
      // allow (256 MiB of them, ~4,000 heads), so nothing but the heap stops them. A bound, not a timing: a service
      // that hangs instead of exiting outlives it.
      heads = HeldHeads(service.port.get, 64 * 1024 - 512)
      val start = System.nanoTime()
      heads.flood(most = 4000, perSecond = 1000, seconds = 60)(!service.isAlive)
      val code = service.exitCode(30)
      val seconds = (System.nanoTime() - start) / 1e9
      info(f"exit ${code.getOrElse("none")} ${seconds}%.1f s after the flood began, ${heads.opened} connections " +
        f"opened, ${heads.bytesSent / 1e6}%.1f MB of heads sent")
      withClue(s"${heads.opened} connections, ${heads.bytesSent} bytes sent:\n${service.logTail}\n") {
        code shouldBe Some(3)
        service.output should include("Terminating due to java.lang.OutOfMemoryError: Java heap space")
      }
    finally
      if heads != null then heads.close()
      service.kill()
  }
