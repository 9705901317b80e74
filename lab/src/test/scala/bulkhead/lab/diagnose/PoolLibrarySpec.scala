package bulkhead.lab.diagnose

import bulkhead.lab.sample.{PoolSample, Sample, ThreadDump, WaitGraph}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** A pool's library named from the frames its waiters parked in, on recorded real dumps: no list of libraries. */
class PoolLibrarySpec extends AnyFlatSpec with Matchers:
  private def waits(fixture: String) =
    val dump = ThreadDump.parse(Fixtures.text(fixture))
    WaitResources.of(RunView(Seq(Sample(0, PoolSample.of(dump), None, None, None, None, None, None,
      resources = WaitGraph.of(dump))), answeredRate = 10, clients = 30, path = "/work"))

  "PoolLibrary" should "name the pool's own library, the library the caller took it through, and the caller" in {
    val Seq(jedis) = waits("threaddump-zoo-jedis-held-jdk25.txt")
    val lib = PoolLibrary.of(jedis).get
    // The outermost lending frame of the library nearest the wait, not its deque's takeFirst.
    lib.lentAt shouldBe "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject"
    lib.library shouldBe "org.apache.commons.pool2"
    lib.through shouldBe Some("redis.clients.jedis" -> "redis.clients.jedis.JedisPool.getResource")
    lib.caller shouldBe Some("bulkhead.zoo.JedisHeld.work")
    // The caller's library names the setting its users set.
    lib.setting.get should startWith("JedisPoolConfig.setMaxTotal")
  }

  it should "read a connection pool's lease through its client's classes as one library" in {
    val Seq(lease) = waits("threaddump-zoo-httpclient-pool-jdk25.txt")
    val lib = PoolLibrary.of(lease).get
    lib.lentAt shouldBe "org.apache.hc.client5.http.impl.classic.InternalExecRuntime.acquireEndpoint"
    lib.through shouldBe None
    lib.setting.get should include("setMaxConnPerRoute")
  }

  it should "find no lending code in a semaphore acquired by the application itself, nor a setting for a stranger" in {
    val Seq(semaphore) = waits("threaddump-zoo-undertow-semaphore-jdk25.txt")
    PoolLibrary.of(semaphore) shouldBe None
    PoolLibrary.settingOf("com.example.pool") shouldBe None
    PoolLibrary.libraryOf("com.example.pool.impl.ObjectBag.borrow") shouldBe "com.example.pool"
  }
