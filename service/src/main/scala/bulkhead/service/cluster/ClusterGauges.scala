package bulkhead.service.cluster

import bulkhead.service.enrichment.CustomerRoutee
import io.micrometer.core.instrument.{Counter, Gauge, MeterRegistry, MultiGauge, Tags}
import org.apache.pekko.actor.Address
import org.apache.pekko.actor.typed.receptionist.Receptionist
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem}
import org.apache.pekko.cluster.MemberStatus
import org.apache.pekko.cluster.typed.Cluster

import scala.jdk.CollectionConverters.*

/**
 * The cluster in /metrics, as this node sees it: members up and unreachable, the routees the Receptionist lists per
 * node (what the router routes to), and the lookups this node's routees served. Nodes are labelled `host:port`.
 */
final class ClusterGauges private (registry: MeterRegistry, cluster: Cluster):
  /** This node's label, `host:port` of its Artery socket. */
  val node: String = ClusterGauges.label(cluster.selfMember.address)

  Gauge.builder("cluster.members.up", () => cluster.state.members.count(_.status == MemberStatus.Up))
    .description("members with status Up, as this node sees the cluster").register(registry)
  Gauge.builder("cluster.members.unreachable", () => cluster.state.unreachable.size)
    .description("members this node's failure detector marks unreachable").register(registry)

  private val lookups: Counter = Counter.builder("cluster.routee.lookups").tags("node", node)
    .description("lookups received by this node's routees, from any node's router").register(registry)
  private val routees: MultiGauge = MultiGauge.builder("cluster.routees")
    .description("routees the router sends to, per node (reachable ones, from the Receptionist's listing)")
    .register(registry)

  /** Counts one lookup received by a routee of this node. */
  def lookupReceived(): Unit = lookups.increment()

  private def listed(refs: Set[ActorRef[CustomerRoutee.Command]]): Unit =
    val perNode = refs.toSeq.groupBy(r => ClusterGauges.label(r.path.address, cluster.selfMember.address))
    routees.register(perNode.map((n, rs) => MultiGauge.Row.of(Tags.of("node", n), rs.size)).toSeq.asJava, true)

object ClusterGauges:
  /** Registers the gauges and follows the Receptionist's listing of the routees. */
  def bind(registry: MeterRegistry)(using system: ActorSystem[?]): ClusterGauges =
    val gauges = ClusterGauges(registry, Cluster(system))
    system.systemActorOf(Behaviors.setup[Receptionist.Listing] { context =>
      system.receptionist ! Receptionist.Subscribe(ClusterRouting.Key, context.self)
      Behaviors.receiveMessage { case ClusterRouting.Key.Listing(refs) =>
        gauges.listed(refs)
        Behaviors.same
      }
    }, "cluster-routee-listing")
    gauges

  /** `host:port`; a local actor's address has neither, it is this node's. */
  private def label(address: Address, self: Address): String = label(if address.hasLocalScope then self else address)

  private def label(address: Address): String = s"${address.host.getOrElse("?")}:${address.port.getOrElse(0)}"
