package bulkhead.service.work

import java.util.concurrent.atomic.AtomicReference
import scala.annotation.tailrec

/**
 * What work listens to in order to stop early: its request was abandoned (the client went away, or the request timed
 * out and was already answered). Work registers how to stop; nothing else needs to know why.
 */
trait Cancellation:
  /** Runs `action` once when the request is abandoned; at once if it already was. */
  def onCancel(action: () => Unit): Unit

object Cancellation:
  /** For work whose request is never abandoned (callers without a connection, such as route tests). */
  val Never: Cancellation = _ => ()

/** A [[Cancellation]] that its owner (the connection serving the request) triggers. */
final class CancellationSignal extends Cancellation:
  // null once cancelled: the actions have run and later ones run at once.
  private val actions = AtomicReference[List[() => Unit]](Nil)

  @tailrec def onCancel(action: () => Unit): Unit =
    val current = actions.get
    if current eq null then action()
    else if !actions.compareAndSet(current, action :: current) then onCancel(action)

  /** Runs the registered actions, once. */
  def cancel(): Unit =
    val current = actions.getAndSet(null)
    if current ne null then current.foreach(_())

  def isCancelled: Boolean = actions.get eq null
