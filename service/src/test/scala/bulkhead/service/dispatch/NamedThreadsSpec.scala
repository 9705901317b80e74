package bulkhead.service.dispatch

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class NamedThreadsSpec extends AnyFlatSpec with Matchers:

  "NamedThreads" should "name threads after the pool, numbered from 1, and make them daemons" in {
    val threads = NamedThreads("bulkhead.spec.pool")
    val made = (1 to 3).map(_ => threads.newThread(() => ()))
    made.map(_.getName) shouldBe Seq("bulkhead.spec.pool-1", "bulkhead.spec.pool-2", "bulkhead.spec.pool-3")
    all(made.map(_.isDaemon)) shouldBe true
  }

  it should "number each factory's threads on their own" in {
    NamedThreads("a").newThread(() => ())
    NamedThreads("b").newThread(() => ()).getName shouldBe "b-1"
  }
