package bulkhead.lab.sample

import bulkhead.lab.process.Stack
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow


/**
 * The attach API from the lab's own JVM, on a real JVM (the service, whose dump is larger than the 16 KB a first read
 * buffer holds): whole answers, not a first chunk.
 */
@Slow
class AttachSpec extends AnyFlatSpec with Matchers:

  "Attach" should "read a JVM's whole thread dump, to HotSpot's closing line, without launching jcmd" in {
    val service = Stack(Fixtures.launch, Scratch.dir("attach")).service(Nil, heap = Stack.ServeHeap)
    try
      val dump = Attach.jcmd(service.child.pid, "Thread.print -l").fold(e => fail(e), identity)
      // HotSpot ends Thread.print with the JNI references: a dump cut short has no such line.
      dump.linesIterator.exists(_.startsWith("JNI global refs")) shouldBe true
      dump.length should be > 16384
      ThreadDump.parse(dump).threads.size should be > 10
    finally service.child.stop()
  }
