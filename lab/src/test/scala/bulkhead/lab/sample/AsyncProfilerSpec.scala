package bulkhead.lab.sample

import bulkhead.lab.process.Stack
import bulkhead.lab.report.ProfileStages
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Files

/** async-profiler loaded into a real JVM (the service) while it answers requests, as `bench --profile` does. */
@Slow
class AsyncProfilerSpec extends AnyFlatSpec with Matchers:

  "AsyncProfiler" should "write a flame graph and collapsed stacks of what a running JVM did between start and stop" in {
    val dir = Scratch.dir("profile")
    val service = Stack(Fixtures.launch, dir).service(Nil, heap = Stack.ServeHeap)
    try
      AsyncProfiler.start(service.child.pid).fold(e => fail(e), identity)
      (1 to 300).foreach(_ => Stack.get(service.url("/hello")))
      val files = AsyncProfiler.stop(service.child.pid, dir).fold(e => fail(e), identity)
      files.map(_.getFileName.toString).toSet shouldBe Set(AsyncProfiler.FlameGraph, AsyncProfiler.Collapsed)
      Files.readString(dir.resolve(AsyncProfiler.FlameGraph)) should include("<html")
      val stages = ProfileStages.read(dir.resolve(AsyncProfiler.Collapsed)).fold(e => fail(e), identity)
      stages.values.sum should be > 0L
    finally service.child.stop()
  }
