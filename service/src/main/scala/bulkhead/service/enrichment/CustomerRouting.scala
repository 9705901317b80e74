package bulkhead.service.enrichment

import org.apache.pekko.actor.ExtendedActorSystem
import org.apache.pekko.actor.typed.scaladsl.adapter.*
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem, Behavior}
import org.apache.pekko.routing.RoundRobinPool

/** Where the pipeline's routees run and how its router finds them. */
trait CustomerRouting:
  /** Starts `routees` routees of this node, each running `routee`, and returns the router the pipeline asks. */
  def start(routees: Int, routee: Behavior[CustomerRoutee.Command])(using
      ActorSystem[?]): ActorRef[CustomerRoutee.Command]

object CustomerRouting:
  /**
   * One JVM: a round-robin pool router whose routees are its children. optimization: Pekko's classic pool router picks
   * the routee on the sender's thread and enqueues the message straight into the routee's mailbox; the typed
   * `Routers.pool` is an actor of its own, one more mailbox run (a task on the dispatcher) for every lookup. The
   * routees are the same typed behaviour, supervised the same way.
   */
  object Local extends CustomerRouting:
    def start(routees: Int, routee: Behavior[CustomerRoutee.Command])(using
        system: ActorSystem[?]): ActorRef[CustomerRoutee.Command] =
      val pool = RoundRobinPool(routees).props(PropsAdapter(routee))
      system.classicSystem.asInstanceOf[ExtendedActorSystem].systemActorOf(pool, "customers").toTyped
