package bulkhead.lab.sample

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.attribute.PosixFilePermissions
import java.nio.file.{Files, Path}

/** JMX credentials from a file of its owner's only: never from the command line. */
class JmxCredentialsSpec extends AnyFlatSpec with Matchers:
  private def file(text: String, mode: String = "rw-------"): Path =
    val f = Scratch.file("jmx-credentials", "")
    Files.writeString(f, text)
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode))
    f

  "JmxCredentials" should "read `user password` from the first line that is not a comment" in {
    val c = JmxCredentials.read(file("# the lab's JMX user\n\nmonitor  s3cret with spaces \n")).toOption.get
    c.user shouldBe "monitor"
    c.asEnvironment.toSeq shouldBe Seq("monitor", "s3cret with spaces")
    c.toString should not include "s3cret"
  }

  it should "refuse a file other users can read, as the JDK's agent refuses its password file" in {
    val f = file("monitor s3cret\n", "rw-r--r--")
    JmxCredentials.read(f) shouldBe Left(s"$f is readable by other users: it holds a password (chmod 600 $f)")
  }

  it should "refuse a file without a password, and a missing file" in {
    val f = file("monitor\n")
    JmxCredentials.read(f) shouldBe Left(s"$f must hold `user password` on one line")
    JmxCredentials.read(Path.of("/nonexistent/jmx")) shouldBe Left("no credentials file /nonexistent/jmx")
  }
