package bulkhead.peers.vertx;

import java.io.ByteArrayInputStream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads the third party's answer to GetCustomer with a StAX pull parser, as it streams: no tree is built, only the four
 * fields are kept. A SOAP Fault whose detail holds UnknownCustomer is a 404, any other fault or unreadable answer a 502
 * (bulkhead's sentences). A DOCTYPE is refused, so no entity is ever expanded. Not thread-safe: one per verticle.
 */
final class GetCustomerAnswer {
  static final String EnvelopeNs = "http://schemas.xmlsoap.org/soap/envelope/";
  static final int MaxBytes = 65536;

  private final XMLInputFactory factory = XMLInputFactory.newFactory();

  GetCustomerAnswer() {
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    factory.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
  }

  /** The customer `id` of an HTTP answer of the third party (SOAP 1.1: results with 200, faults with 500). */
  Customer read(int id, int status, byte[] body) {
    if (status != 200 && status != 500) throw fault();
    if (body.length > MaxBytes) throw unreadable();
    try {
      XMLStreamReader xml = factory.createXMLStreamReader(new ByteArrayInputStream(body));
      try {
        return read(id, xml);
      } finally {
        xml.close();
      }
    } catch (XMLStreamException | RuntimeException e) {
      if (e instanceof Refusal r) throw r;
      throw unreadable();
    }
  }

  /** Envelope / Body / (GetCustomerResponse / customer / {id, name, segment, country} | Fault / detail / ...). */
  private Customer read(int id, XMLStreamReader xml) throws XMLStreamException {
    int depth = 0;
    boolean envelope = false;
    boolean body = false;
    boolean fault = false;
    boolean unknown = false;
    String cid = null, name = null, segment = null, country = null;
    String path2 = "", path3 = "", path4 = "";
    while (xml.hasNext()) {
      int event = xml.next();
      if (event == XMLStreamConstants.DTD) throw unreadable();
      if (event == XMLStreamConstants.END_ELEMENT) {
        depth--;
      } else if (event == XMLStreamConstants.START_ELEMENT) {
        depth++;
        String local = xml.getLocalName();
        switch (depth) {
          case 1:
            envelope = local.equals("Envelope") && EnvelopeNs.equals(xml.getNamespaceURI());
            if (!envelope) throw unreadable();
            break;
          case 2:
            path2 = local;
            if (local.equals("Body") && EnvelopeNs.equals(xml.getNamespaceURI())) body = true;
            break;
          case 3:
            path3 = local;
            if (path2.equals("Body") && local.equals("Fault")) fault = true;
            break;
          case 4:
            path4 = local;
            break;
          case 5:
            if (path3.equals("Fault") && path4.equals("detail") && local.equals("UnknownCustomer")) unknown = true;
            else if (path3.equals("GetCustomerResponse") && path4.equals("customer")) {
              String text = xml.getElementText().trim();
              depth--; // getElementText stops on this element's end
              switch (local) {
                case "id": cid = text; break;
                case "name": name = text; break;
                case "segment": segment = text; break;
                case "country": country = text; break;
                default: break;
              }
            }
            break;
          default:
            break;
        }
      }
    }
    if (!envelope || !body) throw unreadable();
    if (fault) throw unknown ? new Refusal(404, "customer " + id + " is unknown to the third party") : fault();
    if (isEmpty(cid) || isEmpty(name) || isEmpty(segment) || isEmpty(country)) throw unreadable();
    int answered;
    try {
      answered = Integer.parseInt(cid);
    } catch (NumberFormatException e) {
      throw unreadable();
    }
    if (answered != id) throw unreadable();
    return new Customer(answered, name, segment, country);
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }

  static Refusal fault() {
    return new Refusal(502, "the third party answered with a fault");
  }

  static Refusal unreadable() {
    return new Refusal(502, "the third party's answer could not be read");
  }
}
