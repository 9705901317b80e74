package bulkhead.service.testkit

import bulkhead.service.testkit.HttpProbe.get
import bulkhead.service.testkit.TestService.{url, withService}
import bulkhead.service.testkit.TestStub.{endpoint, withStub}

/**
 * The /metrics text of a real service after it has answered every route (work, customers found and not, bad input,
 * health), with Redis and the stub running, so that the families it publishes in that configuration are there.
 * `overrides` choose it, e.g. the SOAP client's mode (blocking by default: its work queue is a pool) or a cluster.
 */
object ServedTraffic:
  def scrape(overrides: (String, Any)*): String =
    RedisProcess.withRedis { redis =>
      redis.cli("HSET", "customer:1", "points", "1", "tier", "basic", "lastOrder", "2026-01-01")
      withStub("fixed:5") { stub =>
        val settings = Seq[(String, Any)]("bulkhead.enrichment.soap.endpoint" -> endpoint(stub),
          "bulkhead.enrichment.redis.uri" -> redis.uri, "bulkhead.enrichment.soap.mode" -> "blocking",
          "bulkhead.enrichment.routees" -> 2) ++ overrides
        withService(settings*) { s =>
          val paths = Seq("/hello", "/hello?routed", "/work/async?ms=1", "/work/pool?ms=1", "/work/default?ms=1",
            "/work/turbo", "/customers/1", "/customers/2", "/customers/abc", "/customers/999999999", "/health",
            "/nothing")
          for path <- paths; _ <- 1 to 3 do get(url(s, path))
          get(url(s, "/metrics")).body
        }
      }
    }
