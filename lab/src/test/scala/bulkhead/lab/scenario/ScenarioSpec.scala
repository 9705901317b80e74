package bulkhead.lab.scenario

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

class ScenarioSpec extends AnyFlatSpec with Matchers:
  private val scenarios = Path.of("scenarios").toAbsolutePath

  "The seed suite" should "hold one readable scenario per row of DESIGN.md's table (13)" in {
    val files = Scenario.files(Seq(scenarios.resolve("seeds").toString)).toOption.get
    val read = files.map(Scenario.load(_))
    read.collect { case Left(e) => e } shouldBe Nil
    read.flatMap(_.toOption).flatMap(_.seed.map(_.row)).sorted shouldBe (1 to 13)
  }

  it should "shorten durations and cap connections for the demo, keeping the seeds' own for --full" in {
    val file = scenarios.resolve("seeds/06-non-blocking-c10000.conf")
    val full = Scenario.load(file).toOption.get.load.asInstanceOf[Load.Wrk]
    val short = Scenario.load(file, short = true).toOption.get.load.asInstanceOf[Load.Wrk]
    (full.connections, full.duration) shouldBe (10000, 60.seconds)
    (short.connections, short.duration) shouldBe (2000, 20.seconds)
  }

  "A scenario file" should "be refused with the unknown key named" in {
    val f = Files.createTempFile("bad", ".conf")
    Files.writeString(f, "name = x\nload { path = \"/hello\", conections = 5 }\n")
    Scenario.load(f).left.toOption.get should include("unknown key load.conections")
  }

  it should "be refused with a bad driver or path named" in {
    val f = Files.createTempFile("bad", ".conf")
    Files.writeString(f, "load { driver = jmx }\n")
    Scenario.load(f).left.toOption.get should include("load.driver must be wrk or ramp, was 'jmx'")
    Files.writeString(f, "load { path = hello }\n")
    Scenario.load(f).left.toOption.get should include("load.path must start with /")
  }

  it should "say which file is missing" in {
    Scenario.files(Seq("no/such/dir")) shouldBe Left("no such scenario file or directory: no/such/dir")
  }

  "A cluster scenario" should "read cluster.nodes, and default to one service" in {
    val f = Files.createTempFile("cluster", ".conf")
    Files.writeString(f, "cluster.nodes = 3\n")
    Scenario.load(f).map(_.clusterNodes) shouldBe Right(3)
    Files.writeString(f, "name = x\n")
    Scenario.load(f).map(_.clusterNodes) shouldBe Right(1)
  }

  it should "be refused with a bad node count, a peer target or cluster flags of its own named" in {
    val f = Files.createTempFile("cluster", ".conf")
    Files.writeString(f, "cluster.nodes = 0\n")
    Scenario.load(f).left.toOption.get should include("cluster.nodes must be 1..9, was 0")
    Files.writeString(f, "cluster.nodes = 2\ntarget = akka-http\n")
    Scenario.load(f).left.toOption.get should include("target = bulkhead")
    Files.writeString(f, "cluster.nodes = 2\nservice.flags = [\"--seed-node\", \"127.0.0.1:2552\"]\n")
    Scenario.load(f).left.toOption.get should include("service.flags sets --seed-node")
  }
