/** Demo content: Estonian venues and organizers, bilingual categories, and titles per category. */

export const VENUES = [
  { name: 'Kultuurikatel', address: 'Põhja puiestee 27a', city: 'Tallinn', zip: '10415', phone: '+372 715 5300', website: 'https://kultuurikatel.ee', lat: 59.4416, lng: 24.7535, description: 'A former power station on the seafront, now a creative hub with three halls.' },
  { name: 'Vaba Lava', address: 'Telliskivi 60a/3', city: 'Tallinn', zip: '10412', phone: '+372 601 3040', website: 'https://vabalava.ee', lat: 59.4397, lng: 24.7283, description: 'Independent theatre venue in the Telliskivi Creative City.' },
  { name: 'Alexela Concert Hall', address: 'Tartu mnt 2', city: 'Tallinn', zip: '10145', phone: '+372 667 8900', website: 'https://concert.ee', lat: 59.4348, lng: 24.7571, description: 'Concert hall for 2,000 in the city centre.' },
  { name: 'Sõltumatu Tantsu Lava', address: 'Põhja pst 35', city: 'Tallinn', zip: '10415', phone: '+372 600 4040', website: 'https://stl.ee', lat: 59.4431, lng: 24.7474, description: 'Contemporary dance and performance.' },
  { name: 'Tartu Sadamateater', address: 'Soola 5b', city: 'Tartu', zip: '51013', phone: '+372 744 0100', website: 'https://vanemuine.ee', lat: 58.3786, lng: 26.7312, description: 'Harbour theatre of the Vanemuine company.' },
  { name: 'Genialistide Klubi', address: 'Magasini 5', city: 'Tartu', zip: '51005', phone: '+372 5666 1234', website: 'https://genklubi.ee', lat: 58.3777, lng: 26.7261, description: 'Club for concerts, film nights and parties.' },
  { name: 'Pärnu Kontserdimaja', address: 'Aida 4', city: 'Pärnu', zip: '80011', phone: '+372 445 5800', website: 'https://concert.ee/parnu', lat: 58.3828, lng: 24.5046, description: 'Concert house by the river.' },
  { name: 'Kumu Auditorium', address: 'A. Weizenbergi 34', city: 'Tallinn', zip: '10127', phone: '+372 602 6000', website: 'https://kumu.ekm.ee', lat: 59.4358, lng: 24.7952, description: 'Auditorium of the Art Museum of Estonia.' },
];

export const ORGANIZERS = [
  { name: 'Eesti Kontsert', email: 'info@concert.example', phone: '+372 614 7700', website: 'https://concert.example', description: 'National concert organisation.' },
  { name: 'Telliskivi Events', email: 'hello@telliskivi.example', phone: '+372 5800 1000', website: 'https://telliskivi.example', description: 'Markets, festivals and talks.' },
  { name: 'Tartu Jazz Club', email: 'jazz@tartu.example', phone: '+372 5301 2233', website: 'https://tartujazz.example', description: 'Jazz in Tartu since 1998.' },
  { name: 'Code Baltic', email: 'team@codebaltic.example', phone: '+372 5511 7788', website: 'https://codebaltic.example', description: 'Developer conferences and workshops.' },
  { name: 'Family Weekends', email: 'tere@family.example', phone: '+372 5222 9090', website: 'https://family.example', description: 'Weekend programmes for children and parents.' },
  { name: 'Nordic Film Society', email: 'films@nfs.example', phone: '+372 5400 1122', website: 'https://nfs.example', description: 'Screenings with directors in the room.' },
];

export const CATEGORIES = [
  { name: 'Music', et: 'Muusika', free: false, description: 'Concerts and live music.', blurb: 'An evening of live music with a full band and special guests.' },
  { name: 'Theatre', et: 'Teater', free: false, description: 'Plays and performances.', blurb: 'A new production by an ensemble that has toured the Baltics for a decade.' },
  { name: 'Conference', et: 'Konverents', free: false, description: 'Talks and conferences.', blurb: 'A day of talks, panels and hallway conversations, with lunch included.' },
  { name: 'Workshop', et: 'Töötuba', free: false, description: 'Hands-on workshops.', blurb: 'A hands-on session in small groups; all materials are provided.' },
  { name: 'Family', et: 'Pere', free: true, description: 'For children and parents.', blurb: 'A relaxed programme for children of all ages and their grown-ups.' },
  { name: 'Film', et: 'Film', free: false, description: 'Screenings.', blurb: 'A screening followed by a conversation with the director.' },
  { name: 'Festival', et: 'Festival', free: false, description: 'Multi-stage festivals.', blurb: 'Several stages, food stalls and a programme from noon until late.' },
];

export const TAGS = ['jazz', 'outdoor', 'english', 'estonian', 'accessible', 'kids', 'premiere', 'late-night', 'free-entry', 'students'];

export const TITLES: Record<string, string[]> = {
  Music: ['Jazz Night with the Harbour Quartet', 'Baltic Sea Philharmonic', 'Kärt Johanson Trio', 'Organ Evening at Kumu', 'Vaiko Eplik & Band', 'Indie Friday', 'Choir of the Midnight Sun', 'Electronic Nordics'],
  Theatre: ['The Seagull', 'Tõde ja õigus', 'A Doll\'s House, Revisited', 'Improv Evening', 'The Cherry Orchard', 'Dance Lab Premiere'],
  Conference: ['Code Baltic 2027', 'Future of Cities Forum', 'Product Days Tallinn', 'Open Data Summit', 'Security Breakfast'],
  Workshop: ['Ceramics for Beginners', 'Screen Printing Workshop', 'Intro to Rust', 'Sourdough Basics', 'Photography Walk'],
  Family: ['Puppet Theatre Morning', 'Science Show for Kids', 'Family Concert', 'Story Time in English', 'Lego Build Day'],
  Film: ['Nordic Shorts', 'November (2017) with the director', 'Documentary Night', 'Silent Film with Live Piano', 'Animation Marathon'],
  Festival: ['Tallinn Music Week Showcase', 'Telliskivi Flea Market Festival', 'Tartu Student Days', 'Old Town Days', 'Christmas Market Opening'],
};
