-- wrk script: POST a SOAP 1.1 GetCustomer to the stub, as the service's SOAP client does.
wrk.method = "POST"
wrk.headers["Content-Type"] = "text/xml; charset=utf-8"
wrk.headers["SOAPAction"] = "\"urn:bulkhead:customers/GetCustomer\""
wrk.body = '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:cus="urn:bulkhead:customers"><soapenv:Body><cus:GetCustomer><cus:customerId>42</cus:customerId></cus:GetCustomer></soapenv:Body></soapenv:Envelope>'
