package bulkhead.service.config

import bulkhead.service.testkit.{Scratch, TestService}
import com.typesafe.config.ConfigException
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.jdk.CollectionConverters.*

class ClusterSettingsSpec extends AnyFlatSpec with Matchers:

  private def fromFlags(flags: String*): ClusterSettings =
    ServiceSettings(ServiceCommandLine.parse(flags).toOption.get).cluster

  private def refusal(flags: String*): String =
    (the[ConfigException] thrownBy fromFlags(flags*)).getMessage

  "ClusterSettings" should "be a single node when no cluster key or flag is given" in {
    ServiceSettings(TestService.config(Map.empty)).cluster shouldBe ClusterSettings.SingleNode
    fromFlags() shouldBe ClusterSettings.SingleNode
  }

  /** A key store and a trust store: files that exist (the settings check them; Pekko reads them at start). */
  private lazy val stores: Seq[String] =
    Seq("node", "trust").map(n => Scratch.file(s"bulkhead-$n", ".p12").toString)

  private def tlsFlags: Seq[String] = Seq("--set", s"bulkhead.cluster.tls.key-store=${stores(0)}",
    "--set", "bulkhead.cluster.tls.key-store-password=k", "--set", s"bulkhead.cluster.tls.trust-store=${stores(1)}",
    "--set", "bulkhead.cluster.tls.trust-store-password=t")

  it should "turn --cluster-port, --cluster-host and repeated --seed-node into a member" in {
    fromFlags(Seq("--cluster-port", "25521", "--cluster-host", "10.0.0.2", "--seed-node", "10.0.0.1:25520",
      "--seed-node", "10.0.0.3:25522") ++ tlsFlags*) shouldBe
      ClusterSettings.Member("10.0.0.2", 25521, Seq(SeedNode("10.0.0.1", 25520), SeedNode("10.0.0.3", 25522)),
        Some(ClusterTls(stores(0), "k", stores(1), "t")))
  }

  it should "refuse a cluster off loopback without TLS, naming the host and the keys to set" in {
    val message = refusal("--cluster-port", "25521", "--cluster-host", "10.0.0.2")
    message should include("bulkhead.cluster.host")
    message should include("'10.0.0.2' is not a loopback address")
    message should include("bulkhead.cluster.tls.key-store")
    refusal("--cluster-port", "25521", "--cluster-host", "0.0.0.0") should include("not a loopback address")
    fromFlags("--cluster-port", "25521", "--cluster-host", "127.0.0.1") shouldBe
      ClusterSettings.Member("127.0.0.1", 25521, Nil, None)
  }

  it should "refuse a key store that is not a readable file, naming it" in {
    refusal(Seq("--cluster-port", "25521", "--cluster-host", "10.0.0.2") ++ tlsFlags.updated(1,
      "bulkhead.cluster.tls.key-store=/nonexistent/node.p12")*) should include("no readable file '/nonexistent/node.p12'")
  }

  it should "run Artery over TLS with mutual authentication when TLS is set" in {
    val c = ClusterSettings.pekkoConfig(ClusterSettings.Member("10.0.0.2", 25521, Nil,
      Some(ClusterTls("/k.p12", "k", "/t.p12", "t"))), "bulkhead")
    c.getString("pekko.remote.artery.transport") shouldBe "tls-tcp"
    c.getBoolean("pekko.remote.artery.ssl.config-ssl-engine.require-mutual-authentication") shouldBe true
    c.getString("pekko.remote.artery.ssl.config-ssl-engine.trust-store") shouldBe "/t.p12"
    ClusterTls("/k.p12", "secret", "/t.p12", "secret").toString should not include "secret"
  }

  it should "bind loopback by default and start a new cluster when no seed node is given" in {
    fromFlags("--cluster-port", "25520") shouldBe ClusterSettings.Member("127.0.0.1", 25520, Nil)
  }

  it should "read the bulkhead.cluster keys, seed nodes as a list or as one comma-separated string" in {
    ClusterSettings(TestService.config(Map("bulkhead.cluster.port" -> 0,
      "bulkhead.cluster.seed-nodes" -> List("127.0.0.1:2551", "[::1]:2552").asJava))) shouldBe
      ClusterSettings.Member("127.0.0.1", 0, Seq(SeedNode("127.0.0.1", 2551), SeedNode("::1", 2552)))
    fromFlags("--cluster-port", "2553", "--set", "bulkhead.cluster.seed-nodes=127.0.0.1:2551, 127.0.0.1:2552") shouldBe
      ClusterSettings.Member("127.0.0.1", 2553, Seq(SeedNode("127.0.0.1", 2551), SeedNode("127.0.0.1", 2552)))
  }

  it should "refuse a bad port, a bad seed node and seed nodes without a port, naming the key and the value" in {
    for port <- Seq("70000", "-2", "abc") do
      val message = refusal("--cluster-port", port)
      withClue(s"--cluster-port $port: ") {
        message should include("bulkhead.cluster.port")
        message should include(s"'$port'")
      }
    for seed <- Seq("127.0.0.1", "127.0.0.1:0", ":2551", "host:port", "127.0.0.1:65536") do
      val message = refusal("--cluster-port", "2551", "--seed-node", seed)
      withClue(s"--seed-node $seed: ") {
        message should include("bulkhead.cluster.seed-nodes")
        message should include(s"'$seed'")
      }
    val alone = refusal("--seed-node", "127.0.0.1:2551")
    alone should include("bulkhead.cluster.port")
    alone should include("127.0.0.1:2551")
    refusal("--cluster-port", "2551", "--cluster-host", " ") should include("bulkhead.cluster.host")
  }

  "ClusterSettings.pekkoConfig" should "leave a single node's actor provider alone" in {
    ClusterSettings.pekkoConfig(ClusterSettings.SingleNode, "bulkhead").isEmpty shouldBe true
  }

  it should "make a member a cluster provider on Artery at its address, joining through its seeds" in {
    val c = ClusterSettings.pekkoConfig(
      ClusterSettings.Member("10.0.0.2", 25521, Seq(SeedNode("10.0.0.1", 25520), SeedNode("::1", 25522))), "shop")
    c.getString("pekko.actor.provider") shouldBe "cluster"
    c.getString("pekko.remote.artery.canonical.hostname") shouldBe "10.0.0.2"
    c.getInt("pekko.remote.artery.canonical.port") shouldBe 25521
    c.getStringList("pekko.cluster.seed-nodes").asScala shouldBe
      Seq("pekko://shop@10.0.0.1:25520", "pekko://shop@[::1]:25522")
  }

  it should "make a member without seeds its own seed, so that it starts the cluster" in {
    ClusterSettings.pekkoConfig(ClusterSettings.Member("127.0.0.1", 25520, Nil), "bulkhead")
      .getStringList("pekko.cluster.seed-nodes").asScala shouldBe Seq("pekko://bulkhead@127.0.0.1:25520")
  }
