package bulkhead.service.enrichment

import org.apache.pekko.actor.typed.scaladsl.Routers
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem, Behavior}

/** Where the pipeline's routees run and how its router finds them. */
trait CustomerRouting:
  /** Starts `routees` routees of this node, each running `routee`, and returns the router the pipeline asks. */
  def start(routees: Int, routee: Behavior[CustomerRoutee.Command])(using
      ActorSystem[?]): ActorRef[CustomerRoutee.Command]

object CustomerRouting:
  /** One JVM: a pool router whose routees are its children. */
  object Local extends CustomerRouting:
    def start(routees: Int, routee: Behavior[CustomerRoutee.Command])(using
        system: ActorSystem[?]): ActorRef[CustomerRoutee.Command] =
      system.systemActorOf(Routers.pool(routees)(routee).withRoundRobinRouting(), "customers")
