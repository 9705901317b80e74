package bulkhead.service.testkit

import bulkhead.service.testkit.HttpProbe.get
import bulkhead.service.testkit.TestService.{url, withService}
import bulkhead.service.testkit.TestStub.{endpoint, withStub}

/**
 * The /metrics text of a real service after it has answered every route (work, customers found and not, bad input,
 * health), with Redis and the stub running and the SOAP client on its work queue, so that every family it can
 * publish is there.
 */
object ServedTraffic:
  def scrape(): String =
    RedisProcess.withRedis { redis =>
      redis.cli("HSET", "customer:1", "points", "1", "tier", "basic", "lastOrder", "2026-01-01")
      withStub("fixed:5") { stub =>
        withService("bulkhead.enrichment.soap.endpoint" -> endpoint(stub), "bulkhead.enrichment.redis.uri" -> redis.uri,
          "bulkhead.enrichment.soap.mode" -> "blocking", "bulkhead.enrichment.routees" -> 2) { s =>
          val paths = Seq("/hello", "/hello?routed", "/work/async?ms=1", "/work/pool?ms=1", "/work/default?ms=1",
            "/work/turbo", "/customers/1", "/customers/2", "/customers/abc", "/customers/999999999", "/health",
            "/nothing")
          for path <- paths; _ <- 1 to 3 do get(url(s, path))
          get(url(s, "/metrics")).body
        }
      }
    }
