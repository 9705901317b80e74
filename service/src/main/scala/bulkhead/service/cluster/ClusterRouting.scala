package bulkhead.service.cluster

import bulkhead.service.config.ClusterSettings
import bulkhead.service.enrichment.{CustomerRouting, CustomerRoutee}
import io.micrometer.core.instrument.MeterRegistry
import org.apache.pekko.actor.typed.receptionist.{Receptionist, ServiceKey}
import org.apache.pekko.actor.typed.scaladsl.{Behaviors, Routers}
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem, Behavior, BehaviorInterceptor, TypedActorContext}

/**
 * The routees of every node behind one router: each node registers its own routees with the Receptionist, and its
 * router (`Routers.group`) sends round robin to every routee the Receptionist lists in the cluster. So N nodes give
 * N SOAP clients and N work queues. The listing leaves out routees of unreachable nodes and drops those of removed
 * ones, so a node that dies stops receiving lookups once it is seen unreachable; `onLookup` counts the lookups this
 * node's routees receive, from whichever node they come.
 */
final class ClusterRouting(onLookup: () => Unit) extends CustomerRouting:

  def start(routees: Int, routee: Behavior[CustomerRoutee.Command])(using
      system: ActorSystem[?]): ActorRef[CustomerRoutee.Command] =
    (0 until routees).foreach { i =>
      val counted = Behaviors.intercept(() => ClusterRouting.Counting(onLookup))(routee)
      system.receptionist ! Receptionist.Register(ClusterRouting.Key, system.systemActorOf(counted, s"customer-$i"))
    }
    system.systemActorOf(Routers.group(ClusterRouting.Key).withRoundRobinRouting(), "customers")

object ClusterRouting:
  /** The enrichment routees of the whole cluster; every node must use the same id. */
  val Key: ServiceKey[CustomerRoutee.Command] = ServiceKey[CustomerRoutee.Command]("bulkhead-customer-routees")

  /** The routing the settings ask for: a pool on this node, or the cluster's routees, metered in `registry`. */
  def of(settings: ClusterSettings, registry: MeterRegistry)(using ActorSystem[?]): CustomerRouting = settings match
    case ClusterSettings.SingleNode => CustomerRouting.Local
    case _: ClusterSettings.Member =>
      val gauges = ClusterGauges.bind(registry)
      ClusterRouting(() => gauges.lookupReceived())

  private final class Counting(onLookup: () => Unit)
      extends BehaviorInterceptor[CustomerRoutee.Command, CustomerRoutee.Command]:
    def aroundReceive(context: TypedActorContext[CustomerRoutee.Command], message: CustomerRoutee.Command,
        target: BehaviorInterceptor.ReceiveTarget[CustomerRoutee.Command]): Behavior[CustomerRoutee.Command] =
      onLookup()
      target(context, message)
