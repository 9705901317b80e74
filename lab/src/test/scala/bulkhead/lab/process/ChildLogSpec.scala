package bulkhead.lab.process

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/** The end of a child's log that an error quotes: read leniently, never failing the error it is part of. */
class ChildLogSpec extends AnyFlatSpec with Matchers:
  "A child's log tail" should "be its last 2,000 characters, a log not in UTF-8 included, and empty without a log" in {
    val process = ProcessBuilder("true").start()
    try
      val log = Scratch.file("child-log", ".log")
      // A byte that is no UTF-8 at the start, then 3,000 characters ending in the line that matters.
      Files.write(log, Array[Byte](0xC3.toByte, 0x28) ++ ("x" * 2980 + "\nfatal: the end\n").getBytes("UTF-8"))
      val tail = Child("svc", process, log).logTail
      tail.length shouldBe 2000
      tail should endWith("fatal: the end\n")
      Child("svc", process, log.resolveSibling("none.log")).logTail shouldBe ""
    finally process.destroy()
  }
