package bulkhead.lab.process

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

/** When N service nodes count as joined, read on real scrapes of a 2-node cluster's /metrics (3 routees per node). */
@Slow
class ServiceClusterSpec extends AnyFlatSpec with Matchers:
  private def scrape(name: String): MetricsReading = MetricsReading.parse(Fixtures.text(s"cluster/$name"))
  private val (front, second) = ("127.0.0.1:25901", "127.0.0.1:25902")
  private val joined = Seq(Some(scrape("metrics-front-joined.txt")), Some(scrape("metrics-second-joined.txt")))

  "ServiceCluster" should "count two nodes as joined when both see both up and the front routes to both" in {
    joined.flatMap(_.get.clusterRoutees.get(second)) shouldBe Seq(3.0, 3.0)
    ServiceCluster.missing(Seq(front, second), joined) shouldBe None
  }

  it should "say which node sees too few members, and which did not answer, before the second joined" in {
    val lack = ServiceCluster.missing(Seq(front, second), Seq(Some(scrape("metrics-first-node-alone.txt")), None))
    lack.get should include(s"$front sees 1 members up of 2")
    lack.get should include(s"$second: no /metrics")
  }

  it should "not count a node whose routees the front does not list as joined" in {
    val frontWithoutSecond = joined.head.map(m => m.copy(clusterRoutees = m.clusterRoutees - second))
    ServiceCluster.missing(Seq(front, second), Seq(frontWithoutSecond, joined(1))).get shouldBe
      s"the front lists no routees of $second, which lists 3 of its own"
  }

  it should "not count a cluster whose killed node was downed as joined" in {
    val downed = Some(scrape("metrics-front-second-downed.txt"))
    ServiceCluster.missing(Seq(front, second), Seq(downed, None)).get should include(s"$front sees 1 members up of 2")
  }

  it should "give every node its own cluster port and the same seeds, lowest port first" in {
    val ports = Seq(25911, 25910)
    val seeds = Seq("--seed-node", "127.0.0.1:25910", "--seed-node", "127.0.0.1:25911")
    ServiceCluster.clusterFlags(ports, 0) shouldBe Seq("--cluster-host", "127.0.0.1", "--cluster-port", "25911") ++ seeds
    ServiceCluster.clusterFlags(ports, 1) shouldBe Seq("--cluster-host", "127.0.0.1", "--cluster-port", "25910") ++ seeds
  }
